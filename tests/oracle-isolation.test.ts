import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * The held-out oracle stays held out: only the grader (harness/grading/) may import or read
 * anything under oracle/. harness/paths.ts may spell the folder's name for the grader, and
 * harness/index.ts may re-export the grader's entries; nothing else in the engine, the harness
 * (the simulated population and its corpus included) or the site may name the folder, call the
 * grader's oracle readers, or import from it. Tests are outside the rule: they check the grader.
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

describe('oracle isolation', () => {
  it('holds: nothing outside harness/grading/ imports or reads oracle/', async () => {
    const sources: Record<string, string> = {};
    for (const folder of SOURCE_FOLDERS) for (const file of await files(folder)) sources[file] = await readFile(path.join(ROOT, file), 'utf8');
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
});
