import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The held-out oracle stays held out: only the grader (harness/grading/) may import or read
 * anything under oracle/. harness/paths.ts may spell the folder's name for the grader, and
 * harness/index.ts may re-export the grader's entries; nothing else in the engine, the harness
 * (the simulated population and its corpus included) or the site may name the folder, call the
 * grader's oracle readers, or import from it. Tests are outside the rule: they check the grader.
 * The same holds for the pinned packages a task's examples come from (commonmark's spec.txt
 * holds every expected HTML): only the grader, the battery and the brief reader, which strips
 * every example, name or read them.
 */
const SOURCE_FOLDERS = ['engine', 'harness', 'site/src'];
const GRADER = 'harness/grading/';
/** The validity battery (`harness task check`) is the grader's own proof: it reads the oracle as the grader does, and hands nothing to an agent. */
const BATTERY = 'harness/task/check/';
const ALLOWED: Record<string, string> = {
  'harness/paths.ts': 'defines oracleDir() for the grader',
  'harness/index.ts': "the harness's public entry re-exports the grader's functions",
  'harness/journal/journal-header.ts': "pins a sha256 of the oracle folder's bytes (hashed, never parsed) so a resume cannot mix two oracles",
  'harness/record/run-opening.ts': "names the oracle folder only to hand it to the journal's pins (journal-header.ts hashes it, never parses it); grading goes through harness/grading/",
  'harness/replay/replay.ts': "hashes the oracle folder (digestFolder, never parsed) to compare it with the journal's pin before a replay; grading goes through harness/grading/",
};

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(path.join(ROOT, dir), { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|js|mjs|astro|py|sh|yaml|yml|json|md)$/.test(e.name))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((f) => !f.split('/').includes('node_modules') && !f.split('/').includes('__pycache__'));
}

const RULES: { pattern: RegExp; what: string }[] = [
  { pattern: /(['"`])oracle\1/, what: 'names the oracle folder' },
  { pattern: /['"`][^'"`\n]*(^|[/\\.])oracle\/[^'"`\n]*['"`]/, what: 'holds a path into oracle/' },
  { pattern: /\b(oracleDir|loadOracle|loadSpecOracle|loadMutants|applyMutant)\s*\(/, what: "calls the grader's oracle reader" },
  { pattern: /\bfrom\s+['"][^'"]*\boracle\b[^'"]*['"]|\bimport\s*\(\s*['"][^'"]*\boracle\//, what: 'imports from oracle/' },
  { pattern: /\b(open|Path|read_text|listdir|walk)\s*\([^)\n]*oracle/, what: 'opens a path under oracle/' },
];

/**
 * The pinned packages whose files hold a task's examples and their expected outputs: every
 * package a task.yaml brief source reads, and every package an oracle's coverage.yaml grades by.
 * Read from the tasks' own declarations, so neither this rule nor the harness names one.
 */
export async function heldOutPackages(): Promise<string[]> {
  const names = new Set<string>();
  for (const task of await readdir(path.join(ROOT, 'spec'))) {
    const declared = parse(await readFile(path.join(ROOT, 'spec', task, 'task.yaml'), 'utf8').catch(() => '')) as { brief?: { sources?: Array<{ package?: unknown }> } } | null;
    for (const source of declared?.brief?.sources ?? []) if (typeof source.package === 'string') names.add(source.package);
  }
  for (const task of await readdir(path.join(ROOT, 'oracle'))) {
    const coverage = parse(await readFile(path.join(ROOT, 'oracle', task, 'coverage.yaml'), 'utf8').catch(() => '')) as { package?: unknown } | unknown[] | null;
    if (coverage && !Array.isArray(coverage) && typeof coverage.package === 'string') names.add(coverage.package);
  }
  return [...names].sort();
}

/**
 * The one reader of a held-out package outside the grader and the battery: it cuts the text to
 * the sections a task names and strips every example before anything reaches a brief.
 */
const BRIEF_READER = 'harness/task/brief-sources.ts';
const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const PACKAGE_RULES = (name: string): { pattern: RegExp; what: string }[] => [
  { pattern: new RegExp(`(['"\`])(?:[^'"\`\n]*[/\\\\])?${escaped(name)}(?:[/\\\\][^'"\`\n]*)?\\1`), what: `names the package ${name}` },
  { pattern: new RegExp(`node_modules[/\\\\]${escaped(name)}(?![\\w.-])`), what: `holds a path into node_modules/${name}` },
];
/** Reads any pinned package's files as they are, examples and all: only the brief reader may, and it strips them. */
const RAW_PINNED_READ = { pattern: /\b(pinnedPackageDir|readPinnedFile)\s*\(/, what: 'reads a pinned package raw (examples and all)' };

/** What reaches a held-out package's files outside the grader, the battery and the brief reader. */
export function packageReaders(sources: Record<string, string>, packages: string[]): string[] {
  const rules = [...packages.flatMap(PACKAGE_RULES), RAW_PINNED_READ];
  const bad: string[] = [];
  for (const [file, text] of Object.entries(sources)) {
    if (file.startsWith(GRADER) || file.startsWith(BATTERY) || file === BRIEF_READER) continue;
    text.split('\n').forEach((line, i) => {
      for (const rule of rules) if (rule.pattern.test(line)) bad.push(`${file}:${i + 1} ${rule.what}: ${line.trim()}`);
    });
  }
  return bad;
}

/** What breaks the rule in the given files (path -> text); an empty list means oracle/ is held out. */
export function oracleReaders(sources: Record<string, string>): string[] {
  const bad: string[] = [];
  for (const [file, text] of Object.entries(sources)) {
    if (file.startsWith(GRADER) || file.startsWith(BATTERY) || file in ALLOWED) continue;
    text.split('\n').forEach((line, i) => {
      for (const rule of RULES) if (rule.pattern.test(line)) bad.push(`${file}:${i + 1} ${rule.what}: ${line.trim()}`);
    });
  }
  return bad;
}

async function allSources(): Promise<Record<string, string>> {
  const sources: Record<string, string> = {};
  for (const folder of SOURCE_FOLDERS) for (const file of await files(folder)) sources[file] = await readFile(path.join(ROOT, file), 'utf8');
  return sources;
}

describe('oracle isolation', () => {
  it('holds: nothing outside harness/grading/ imports or reads oracle/', async () => {
    const sources = await allSources();
    expect(Object.keys(sources).some((f) => f.startsWith('harness/sim/corpus/'))).toBe(true);
    expect(Object.keys(sources).some((f) => f.startsWith(GRADER))).toBe(true);
    expect(oracleReaders(sources)).toEqual([]);
  });

  it('would catch the ways code reaches the oracle', () => {
    expect(
      oracleReaders({
        'harness/sim/corpus-files.ts': "const ref = path.join(REPO_ROOT, 'oracle', 'sqlcsv', 'reference');",
        'harness/sim/leaf.ts': "import { cases } from '../../oracle/sqlcsv/cases.js';",
        'engine/leaf.ts': 'const dir = oracleDir(spec);',
        'harness/commands/solve.ts': 'const { oracle } = await loadSpecOracle(spec);',
        'harness/sim/corpus/tests/conftest.py': 'CASES = open("../../oracle/sqlcsv/cases.yaml").read()',
        'site/src/pages/run.astro': 'const data = await fetch(`/oracle/sqlcsv/data.json`);',
        'harness/grading/grader.ts': "const dir = path.join(REPO_ROOT, 'oracle', spec);",
        'harness/paths.ts': "return path.join(REPO_ROOT, 'oracle', name);",
        'harness/sim/truth.ts': '// the oracle judges behaviour only; gradeTree({ tree }) is the way to it',
      }),
    ).toMatchInlineSnapshot(`
      [
        "harness/sim/corpus-files.ts:1 names the oracle folder: const ref = path.join(REPO_ROOT, 'oracle', 'sqlcsv', 'reference');",
        "harness/sim/leaf.ts:1 holds a path into oracle/: import { cases } from '../../oracle/sqlcsv/cases.js';",
        "harness/sim/leaf.ts:1 imports from oracle/: import { cases } from '../../oracle/sqlcsv/cases.js';",
        "engine/leaf.ts:1 calls the grader's oracle reader: const dir = oracleDir(spec);",
        "harness/commands/solve.ts:1 calls the grader's oracle reader: const { oracle } = await loadSpecOracle(spec);",
        "harness/sim/corpus/tests/conftest.py:1 holds a path into oracle/: CASES = open("../../oracle/sqlcsv/cases.yaml").read()",
        "harness/sim/corpus/tests/conftest.py:1 opens a path under oracle/: CASES = open("../../oracle/sqlcsv/cases.yaml").read()",
        "site/src/pages/run.astro:1 holds a path into oracle/: const data = await fetch(\`/oracle/sqlcsv/data.json\`);",
      ]
    `);
  });

  // The examples a task is graded by live in a pinned package as well as in oracle/: the same rule covers its files.
  it("holds for the held-out packages: only the grader, the battery and the brief reader name or read them", async () => {
    const packages = await heldOutPackages();
    // Found through the tasks' declarations: commonmark's brief source and its oracle's coverage.
    expect(packages).toContain('commonmark-spec');
    const sources = await allSources();
    expect(Object.keys(sources)).toContain(BRIEF_READER);
    expect(packageReaders(sources, packages)).toEqual([]);
  });

  it('would catch the ways code reaches a held-out package', () => {
    expect(
      packageReaders(
        {
          'harness/sim/leaf.ts': "const { tests } = require('toy-spec');",
          'harness/cell/objective.ts': "import spec from 'toy-spec/spec.json';",
          'engine/prompt.ts': "const text = await readFile(path.join(REPO_ROOT, 'node_modules', 'toy-spec', 'spec.txt'), 'utf8');",
          'harness/sim/corpus/toy/conftest.py': 'SPEC = open(ROOT / "node_modules/toy-spec/spec.txt").read()',
          'harness/cell/brief.ts': 'const raw = await readPinnedFile(source);',
          'site/src/lib/examples.ts': 'const dir = await pinnedPackageDir({ package: name, version });',
          'harness/grading/cases.ts': "const { tests } = require('toy-spec');",
          'harness/task/check/examples.ts': 'const dir = await pinnedPackageDir(source);',
          'harness/task/brief-sources.ts': 'const text = await readPinnedFile(source, options);',
          'harness/sim/truth.ts': "// toy-spec-extra is another package; 'toy-spec-extra' too",
        },
        ['toy-spec'],
      ),
    ).toMatchInlineSnapshot(`
      [
        "harness/sim/leaf.ts:1 names the package toy-spec: const { tests } = require('toy-spec');",
        "harness/cell/objective.ts:1 names the package toy-spec: import spec from 'toy-spec/spec.json';",
        "engine/prompt.ts:1 names the package toy-spec: const text = await readFile(path.join(REPO_ROOT, 'node_modules', 'toy-spec', 'spec.txt'), 'utf8');",
        "harness/sim/corpus/toy/conftest.py:1 names the package toy-spec: SPEC = open(ROOT / "node_modules/toy-spec/spec.txt").read()",
        "harness/sim/corpus/toy/conftest.py:1 holds a path into node_modules/toy-spec: SPEC = open(ROOT / "node_modules/toy-spec/spec.txt").read()",
        "harness/cell/brief.ts:1 reads a pinned package raw (examples and all): const raw = await readPinnedFile(source);",
        "site/src/lib/examples.ts:1 reads a pinned package raw (examples and all): const dir = await pinnedPackageDir({ package: name, version });",
      ]
    `);
  });
});
