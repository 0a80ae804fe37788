import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_FOLDERS = ['engine', 'harness', 'site/src', 'site/scripts', 'tests'];
/**
 * The modules of harness/ and engine/ the site may import: the run files' schemas as data only
 * (RUN_FILE_SCHEMAS: events, node trees, grades, the report), and run-files.ts for the rest of
 * what a run folder needs (the transcript line, the folder's layout, the secret catalogue, the
 * report's pure drawing code).
 */
const RUN_FILE_SCHEMAS = path.join('harness', 'run-file-schemas.ts');
const SITE_MAY_IMPORT_LIST = [RUN_FILE_SCHEMAS, path.join('harness', 'run-files.ts')];
const SITE_MAY_IMPORT = SITE_MAY_IMPORT_LIST.join(' or ');
/** The engine's schema files the data-only module takes its schemas from, past engine/index.ts (which loads the engine). */
const ENGINE_SCHEMA_FILES = ['ports/events.ts', 'tree/node-result.ts', 'base/check.ts', 'adapters/transcript-line.ts', 'ports/model-client.ts', 'base/usage.ts'].map((f) => path.join('engine', f));
/** The harness's two entries: the public one, and the test seams (fakes, internals tests reach) only tests/ may import. */
const HARNESS_ENTRY = path.join('harness', 'index.ts');
const HARNESS_TESTING = path.join('harness', 'testing.ts');
/** The simulated population, injected at the command layer (harness/commands/): these folders never import it, not even a type. */
const SIM = path.join('harness', 'sim');
const SIM_FREE = ['grading', 'cell', 'stats', 'record'].map((f) => path.join('harness', f));
/** report/'s one door into sim/: the planted truth of a SIMULATED sweep. */
const REPORT = path.join('harness', 'report');
const REPORT_SIM_DOOR = path.join(REPORT, 'planted-truth.ts');
/**
 * The one exception: the run-file schema takes the planted parameters' schema (zod only) straight
 * from sim/, because the site's schemas must have an import graph free of IO and of engine/
 * (tests/harness/report/schemas.test.ts), and planted-truth.ts's is not: the closed form it
 * computes reaches engine/'s error class through harness/sim/defect-model.ts.
 */
const REPORT_SCHEMA_SIM = { from: path.join(REPORT, 'report-schema.ts'), to: path.join(SIM, 'sim-params.ts') };

/** Packages a data-only module may reach: zod, and the numeric libraries a schema's refinements use (pure arithmetic). */
const DATA_ONLY_PACKAGES = new Set(['zod', 'jstat', 'simple-statistics']);

/** What breaks "data only" in the import graph of `entry` (type-only imports vanish at run time): a package but zod, named with the path that reached it. */
async function dataOnlyProblems(entry: string, root = ROOT): Promise<string[]> {
  const problems: string[] = [];
  const seen = new Set<string>();
  const queue: Array<{ file: string; via: string[] }> = [{ file: entry, via: [] }];
  while (queue.length > 0) {
    const { file, via } = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(path.join(root, file), 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) queue.push({ file: path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts'), via: [...via, file] });
      else if (!DATA_ONLY_PACKAGES.has(spec)) problems.push(`${[...via, file].join(' -> ')} imports ${spec}: the site's schemas must be data only (zod, arithmetic and schema files)`);
    }
  }
  return problems;
}

async function sourceFiles(dir: string, root = ROOT): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...(await sourceFiles(rel, root)));
    } else if (/\.(ts|tsx|mts|js|mjs|astro)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every relative import in the tree, resolved to a repository path. */
async function importEdges(root = ROOT): Promise<ImportEdge[]> {
  const edges: ImportEdge[] = [];
  for (const folder of SOURCE_FOLDERS) {
    for (const file of await sourceFiles(folder, root)) {
      const text = await readFile(path.join(root, file), 'utf8');
      const re = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;
      for (const m of text.matchAll(re)) {
        const spec = m[3] ?? m[4]!;
        const to = path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts');
        edges.push({ from: file, to, typeOnly: Boolean(m[2]) });
      }
    }
  }
  return edges;
}

const top = (p: string) => p.split(path.sep)[0]!;
const inside = (p: string, folder: string) => p.startsWith(folder + path.sep);

/** What breaks each rule; an empty list means the architecture holds. */
export function violations(edges: ImportEdge[]): string[] {
  const bad: string[] = [];
  for (const e of edges) {
    const [from, to] = [top(e.from), top(e.to)];
    if (from === 'engine' && (to === 'harness' || to === 'site')) bad.push(`${e.from} -> ${e.to}: engine/ must not import ${to}/`);
    if (from === 'harness' && to === 'site') bad.push(`${e.from} -> ${e.to}: harness/ must not import site/`);
    // The site reads exported run files only: of harness/ and engine/ it imports the run-file schemas and nothing else, not even a type.
    if (from === 'site' && (to === 'engine' || to === 'harness') && !SITE_MAY_IMPORT_LIST.includes(e.to)) {
      bad.push(`${e.from} -> ${e.to}: site/ imports nothing from harness/ or engine/ but ${SITE_MAY_IMPORT}`);
    }
    // Crossing into another top folder goes through its one public entry (the site's one module excepted);
    // tests may also import the harness's test seams.
    const entry = e.to === path.join(to, 'index.ts') || (from === 'tests' && e.to === HARNESS_TESTING) || (e.from === RUN_FILE_SCHEMAS && ENGINE_SCHEMA_FILES.includes(e.to));
    if (from !== to && (to === 'engine' || to === 'harness') && !entry && !(from === 'site' && SITE_MAY_IMPORT_LIST.includes(e.to))) {
      bad.push(`${e.from} -> ${e.to}: import ${to}/index.ts${from === 'tests' && to === 'harness' ? ` or ${HARNESS_TESTING}` : ''}, not its internals`);
    }
    // The test seams are for tests: no other folder, and nothing inside harness/, imports them.
    if (e.to === HARNESS_TESTING && from !== 'tests') bad.push(`${e.from} -> ${e.to}: only tests/ imports ${HARNESS_TESTING}`);
    // The simulated population is injected at the command layer.
    const simFree = SIM_FREE.find((f) => inside(e.from, f));
    if (simFree && inside(e.to, SIM)) bad.push(`${e.from} -> ${e.to}: ${simFree}/ never imports ${SIM}/ (the command layer passes the population in)`);
    const schemaException = e.from === REPORT_SCHEMA_SIM.from && e.to === REPORT_SCHEMA_SIM.to;
    if (inside(e.from, REPORT) && inside(e.to, SIM) && e.from !== REPORT_SIM_DOOR && !schemaException) bad.push(`${e.from} -> ${e.to}: ${REPORT}/ reaches ${SIM}/ only through ${REPORT_SIM_DOOR}`);
    // internal/ is private to the folder that holds it.
    const internalAt = e.to.split(path.sep).indexOf('internal');
    if (internalAt > 0) {
      const owner = e.to.split(path.sep).slice(0, internalAt).join(path.sep);
      if (!e.from.startsWith(owner + path.sep)) bad.push(`${e.from} -> ${e.to}: ${owner}/internal is private`);
    }
  }
  return bad;
}

/** What breaks the entries' rule: each of harness/index.ts and harness/testing.ts names what it exports (a namespace `export * as x` names one binding). */
export function entryProblems(file: string, text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  return [...code.matchAll(/^\s*export\s+(type\s+)?\*\s*(?!\s*as\b)from\s+['"]([^'"]+)['"]/gm)].map((m) => `${file}: export * from '${m[2]}'; name what the entry exports`);
}

/** Every rule over a tree: its import graph and its harness entries. */
async function treeProblems(root: string): Promise<string[]> {
  const entries = await Promise.all([HARNESS_ENTRY, HARNESS_TESTING].map(async (f) => entryProblems(f, await readFile(path.join(root, f), 'utf8').catch(() => ''))));
  return [...violations(await importEdges(root)), ...entries.flat()];
}


/** Every import circle of a graph, each as a path from its first file (by name) back to it. */
export function importCircles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)!.add(e.to);
  }
  // Tarjan's strongly connected components; a component of two or more files (or a file importing itself) is a circle.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next.get(v)?.has(v)) components.push(component);
    }
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  // Each circle as a shortest path inside its component from its first file back to it.
  return components
    .map((component) => {
      const members = new Set(component);
      const start = [...members].sort()[0]!;
      const from = new Map<string, string>();
      const queue = [start];
      while (queue.length) {
        const v = queue.shift()!;
        for (const w of [...(next.get(v) ?? [])].sort()) {
          if (!members.has(w)) continue;
          if (w === start) {
            const path = [start];
            for (let u: string | undefined = v; u !== undefined && u !== start; u = from.get(u)) path.splice(1, 0, u);
            return [...path, start];
          }
          if (!from.has(w)) {
            from.set(w, v);
            queue.push(w);
          }
        }
      }
      return [start, start];
    })
    .sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The folders whose import graph must have no circle (type-only imports count: a circle is a circle). */
const CIRCLE_FREE = ['harness', 'engine', 'site'];

/** The folders whose functions stay within {@link MAX_FUNCTION_LINES}: the record path, read top to bottom. */
const SHORT_FUNCTION_FOLDERS = ['harness/record', 'harness/cell', 'harness/journal', 'harness/replay'];
const MAX_FUNCTION_LINES = 80;

/** Every function of a TypeScript source longer than `max` lines (its whole span, nested functions included). */
export function longFunctions(file: string, text: string, max = MAX_FUNCTION_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out: string[] = [];
  const nameOf = (node: ts.Node): string => {
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessor(node)) && node.name) return node.name.getText(source);
    if (ts.isConstructorDeclaration(node)) return 'constructor';
    const parent = node.parent;
    if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
    if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
    return '(anonymous)';
  };
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) out.push(`${file}:${first + 1}: ${nameOf(node)} is ${lines} lines (at most ${max}): split it into named steps`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The folders that may name a task: each task's own simulated corpus (harness/sim/corpus/<task>/). */
const CORPORA = path.join('harness', 'sim', 'corpus');
/** The folders no file of which may name a task, outside the corpora. */
const TASK_FREE = ['harness', 'engine'];

/**
 * The names of the tasks of a tree: every folder under spec/, and the deliverable package its
 * task.yaml declares (`deliverable.package`), when it declares one.
 */
async function taskNames(root = ROOT): Promise<string[]> {
  const names = new Set<string>();
  for (const entry of await readdir(path.join(root, 'spec'), { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory()) continue;
    names.add(entry.name);
    const text = await readFile(path.join(root, 'spec', entry.name, 'task.yaml'), 'utf8').catch(() => '');
    const pkg = (parse(text) as { deliverable?: { package?: unknown } } | null)?.deliverable?.package;
    if (typeof pkg === 'string' && pkg) names.add(pkg);
  }
  return [...names].sort();
}

/**
 * Every line of one file that names a task, as `file:line: names "task"`. A name is matched as
 * a whole word in code and comments alike, whatever its case, with "_" a separator as "-" and
 * "/" are, so an identifier such as NAME_REQUIREMENTS counts and a longer word holding it does not.
 */
export function taskNameProblems(file: string, text: string, names: readonly string[]): string[] {
  if (names.length === 0) return [];
  const escaped = names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const word = new RegExp(`(?<![A-Za-z0-9])(${escaped.join('|')})(?![A-Za-z0-9])`, 'gi');
  const out: string[] = [];
  text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(word)) out.push(`${file}:${i + 1}: names "${m[1]}"; a task is named only in its own folders (spec/, oracle/, harness/sim/corpus/<task>/)`);
  });
  return out;
}

/** Every file under harness/ and engine/ outside the corpora that names a task of the tree. */
async function taskNameViolations(root = ROOT): Promise<string[]> {
  const names = await taskNames(root);
  const out: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await readdir(path.join(root, dir), { withFileTypes: true }).catch(() => [])) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path.dirname(rel) === CORPORA || entry.name === 'node_modules' || entry.name === '__pycache__') continue;
        await visit(rel);
      } else if (entry.isFile()) {
        const bytes = await readFile(path.join(root, rel));
        if (!bytes.includes(0)) out.push(...taskNameProblems(rel, bytes.toString('utf8'), names));
      }
    }
  };
  for (const folder of TASK_FREE) await visit(folder);
  return out;
}

describe('architecture', () => {
  it('holds: engine never imports harness or site, and folders meet only at their public entries', async () => {
    const edges = await importEdges();
    expect(edges.length).toBeGreaterThan(10);
    expect(violations(edges)).toEqual([]);
  });

  it('holds: harness/index.ts and harness/testing.ts name their exports (no export *)', async () => {
    for (const f of [HARNESS_ENTRY, HARNESS_TESTING]) {
      const text = await readFile(path.join(ROOT, f), 'utf8');
      expect(text).toMatch(/^export \{/m);
      expect(entryProblems(f, text)).toEqual([]);
    }
  });

  it('holds: the simulated population stays behind the command layer (grading, cell, stats, record never import sim/; report/ only through planted-truth.ts)', async () => {
    const edges = await importEdges();
    // The rule is about real edges: the door exists, and the command layer is where the population comes from.
    expect(edges.some((e) => e.from === REPORT_SIM_DOOR && inside(e.to, SIM))).toBe(true);
    expect(edges.some((e) => e.from === path.join('harness', 'commands', 'record.ts') && inside(e.to, SIM))).toBe(true);
    expect(violations(edges).filter((v) => v.includes(SIM))).toEqual([]);
  });

  it('has no import circle under harness/, engine/ and site/ (type-only imports count)', async () => {
    const edges = (await importEdges()).filter((e) => CIRCLE_FREE.includes(top(e.from)) && CIRCLE_FREE.includes(top(e.to)));
    expect(edges.length).toBeGreaterThan(100);
    const circles = importCircles(edges).map((c) => c.join(' -> '));
    expect(circles).toEqual([]);
  });

  it('would catch a planted import circle, naming its path', () => {
    const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });
    expect(
      importCircles([edge('harness/b.ts', 'harness/c.ts'), edge('harness/c.ts', 'harness/a.ts', true), edge('harness/a.ts', 'harness/b.ts'), edge('site/x.ts', 'site/x.ts'), edge('engine/p.ts', 'engine/q.ts')]).map((c) => c.join(' -> ')),
    ).toMatchInlineSnapshot(`
      [
        "harness/a.ts -> harness/b.ts -> harness/c.ts -> harness/a.ts",
        "site/x.ts -> site/x.ts",
      ]
    `);
  });

  it('keeps every function of the record path (record, cell, journal, replay) within 80 lines', async () => {
    const files = (await Promise.all(SHORT_FUNCTION_FOLDERS.map((f) => sourceFiles(f)))).flat().filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(20);
    const long = (await Promise.all(files.map(async (f) => longFunctions(f, await readFile(path.join(ROOT, f), 'utf8'))))).flat();
    expect(long).toEqual([]);
  });

  it('would catch a planted function of 81 lines, and let one of 80 pass', () => {
    const fn = (name: string, lines: number) => `export function ${name}(): number {\n${'  let x = 1;\n'.repeat(lines - 3)}  return 1;\n}\n`;
    const arrow = (lines: number) => `const step = async (): Promise<void> => {\n${'  await 0;\n'.repeat(lines - 2)}};\n`;
    expect(longFunctions('harness/record/x.ts', `${fn('fits', 80)}${fn('recordRun', 81)}class A {\n  method() {\n${'    void 0;\n'.repeat(80)}  }\n}\n${arrow(81)}`)).toMatchInlineSnapshot(`
      [
        "harness/record/x.ts:81: recordRun is 81 lines (at most 80): split it into named steps",
        "harness/record/x.ts:163: method is 82 lines (at most 80): split it into named steps",
        "harness/record/x.ts:246: step is 81 lines (at most 80): split it into named steps",
      ]
    `);
  });

  it('would catch each new rule planted in a copy of the tree', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-architecture-'));
    try {
      const plant = async (file: string, text: string) => {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), text);
      };
      // The real entries, then one planted violation of each rule.
      for (const f of [HARNESS_ENTRY, HARNESS_TESTING]) await plant(f, await readFile(path.join(ROOT, f), 'utf8'));
      expect(await treeProblems(dir)).toEqual([]);
      await plant(HARNESS_ENTRY, `${await readFile(path.join(ROOT, HARNESS_ENTRY), 'utf8')}export * from './sim/index.js';\n`);
      await plant('harness/record/sweep-models.ts', "import { simSetup } from '../sim/population/sim-setup.js';\n");
      await plant('harness/grading/grader.ts', "import type { SimParams } from '../sim/sim-params.js';\n");
      await plant('harness/cell/pair-run.ts', "import {\n  draw,\n} from '../sim/draw.js';\n");
      await plant('harness/stats/holm.ts', "const t = await import('../sim/truth.js');\n");
      await plant('harness/report/build-report.ts', "import { SimParams } from '../sim/sim-params.js';\n");
      await plant('harness/report/planted-truth.ts', "import { expectedCurves } from '../sim/truth.js';\n");
      await plant('harness/report/report-schema.ts', "import { SimParams } from '../sim/sim-params.js';\nimport { expectedCurves } from '../sim/truth.js';\n");
      await plant('harness/commands/record.ts', "import { simSetup } from '../sim/population/sim-setup.js';\n");
      await plant('tests/harness/record/record.test.ts', "import { runRecord } from '../../../harness/index.js';\nimport { bufferIo } from '../../../harness/testing.js';\nimport { recordRun } from '../../../harness/record/record.js';\n");
      await plant('harness/cli.ts', "import { bufferIo } from './testing.js';\n");
      await plant('site/scripts/make-site.ts', "import { bufferIo } from '../../harness/testing.js';\n");
      expect(await treeProblems(dir)).toMatchInlineSnapshot(`
        [
          "harness/cell/pair-run.ts -> harness/sim/draw.ts: harness/cell/ never imports harness/sim/ (the command layer passes the population in)",
          "harness/cli.ts -> harness/testing.ts: only tests/ imports harness/testing.ts",
          "harness/grading/grader.ts -> harness/sim/sim-params.ts: harness/grading/ never imports harness/sim/ (the command layer passes the population in)",
          "harness/record/sweep-models.ts -> harness/sim/population/sim-setup.ts: harness/record/ never imports harness/sim/ (the command layer passes the population in)",
          "harness/report/build-report.ts -> harness/sim/sim-params.ts: harness/report/ reaches harness/sim/ only through harness/report/planted-truth.ts",
          "harness/report/report-schema.ts -> harness/sim/truth.ts: harness/report/ reaches harness/sim/ only through harness/report/planted-truth.ts",
          "harness/stats/holm.ts -> harness/sim/truth.ts: harness/stats/ never imports harness/sim/ (the command layer passes the population in)",
          "site/scripts/make-site.ts -> harness/testing.ts: site/ imports nothing from harness/ or engine/ but harness/run-file-schemas.ts or harness/run-files.ts",
          "site/scripts/make-site.ts -> harness/testing.ts: import harness/index.ts, not its internals",
          "site/scripts/make-site.ts -> harness/testing.ts: only tests/ imports harness/testing.ts",
          "tests/harness/record/record.test.ts -> harness/record/record.ts: import harness/index.ts or harness/testing.ts, not its internals",
          "harness/index.ts: export * from './sim/index.js'; name what the entry exports",
        ]
      `);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('holds: no file under harness/ or engine/ outside a task\'s corpus folder names a task (its spec folder or its deliverable package)', async () => {
    const names = await taskNames();
    // The rule is about real names: at least the first task and its package are found.
    expect(names.length).toBeGreaterThanOrEqual(1);
    expect(await taskNameViolations()).toEqual([]);
  });

  it('would catch a task named outside its folders, naming the file and line, and lets its corpus name it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-task-names-'));
    try {
      const plant = async (file: string, text: string) => {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), text);
      };
      await plant('spec/toy-task/task.yaml', 'version: 1\nname: toy-task\ndeliverable:\n  package: toypkg\n');
      await plant('harness/sim/corpus/toy-task/toypkg/cli.py', '"""toy-task: toypkg is named here, in its own corpus."""\n');
      await plant('harness/grading/clean.ts', '// toy-tasks and toypkgs are other words; atoy-task is too\nexport const x = 1;\n');
      expect(await taskNameViolations(dir)).toEqual([]);
      await plant('harness/grading/grader.ts', "import x from './clean.js';\n// Default: toy-task.\nconst spec = options.spec ?? 'Toy-Task';\n");
      await plant('engine/prompts/worker.md', 'Write the toypkg package.\n');
      await plant('harness/sim/defect-model.ts', 'export const TOYPKG_REQUIREMENTS = [];\n');
      expect(await taskNameViolations(dir)).toMatchInlineSnapshot(`
        [
          "harness/grading/grader.ts:2: names "toy-task"; a task is named only in its own folders (spec/, oracle/, harness/sim/corpus/<task>/)",
          "harness/grading/grader.ts:3: names "Toy-Task"; a task is named only in its own folders (spec/, oracle/, harness/sim/corpus/<task>/)",
          "harness/sim/defect-model.ts:1: names "TOYPKG"; a task is named only in its own folders (spec/, oracle/, harness/sim/corpus/<task>/)",
          "engine/prompts/worker.md:1: names "toypkg"; a task is named only in its own folders (spec/, oracle/, harness/sim/corpus/<task>/)",
        ]
      `);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps the run-file modules pure: they only re-export (no code of their own, no IO)', async () => {
    for (const file of SITE_MAY_IMPORT_LIST) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      const statements = code.split(';').map((s) => s.trim()).filter(Boolean);
      expect(statements.length, file).toBeGreaterThan(3);
      expect(statements.filter((s) => !/^export\s+(\*|\{[\s\S]*\})(\s+as\s+\w+)?\s+from\s+'\.{1,2}\/[^']+'$/.test(s)), file).toEqual([]);
    }
  });

  it('keeps the site\'s schema module data only: its whole import graph is zod and schema files, no node built-in, no engine logic', async () => {
    expect(await dataOnlyProblems(RUN_FILE_SCHEMAS)).toEqual([]);
    // A planted violation: a schema file that reaches the file system is named with the path that led to it.
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-data-only-'));
    try {
      await mkdir(path.join(dir, 'harness'), { recursive: true });
      await writeFile(path.join(dir, 'harness', 'run-file-schemas.ts'), "export { A } from './a.js';\n");
      await writeFile(path.join(dir, 'harness', 'a.ts'), "import { readFile } from 'node:fs/promises';\nimport { z } from 'zod';\nexport const A = z.string();\n");
      expect(await dataOnlyProblems(RUN_FILE_SCHEMAS, dir)).toEqual(['harness/run-file-schemas.ts -> harness/a.ts imports node:fs/promises: the site\'s schemas must be data only (zod, arithmetic and schema files)']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('would catch the violations it exists for', () => {
    expect(
      violations([
        { from: 'engine/solve.ts', to: 'harness/journal.ts', typeOnly: false },
        { from: 'site/src/pages/index.astro', to: 'engine/index.ts', typeOnly: false },
        { from: 'site/src/pages/run.astro', to: 'harness/index.ts', typeOnly: true },
        { from: 'site/scripts/make-site.ts', to: 'harness/report/report-schema.ts', typeOnly: false },
        { from: 'site/src/lib/site-data.ts', to: 'harness/run-files.ts', typeOnly: false },
        { from: 'harness/report/write-report.ts', to: 'site/src/lib/urls.ts', typeOnly: false },
        { from: 'harness/cli.ts', to: 'engine/internal/output-cap.ts', typeOnly: false },
        { from: 'harness/cli.ts', to: 'harness/internal/x.ts', typeOnly: false },
        { from: 'harness/record/sweep-models.ts', to: 'harness/sim/population/sim-setup.ts', typeOnly: false },
        { from: 'harness/grading/grader.ts', to: 'harness/sim/index.ts', typeOnly: true },
        { from: 'harness/cell/pair-run.ts', to: 'harness/sim/draw.ts', typeOnly: false },
        { from: 'harness/stats/holm.ts', to: 'harness/sim/truth.ts', typeOnly: false },
        { from: 'harness/report/write-report.ts', to: 'harness/sim/corpus-files.ts', typeOnly: false },
        { from: 'harness/report/planted-truth.ts', to: 'harness/sim/truth.ts', typeOnly: false },
        { from: 'harness/report/report-schema.ts', to: 'harness/sim/sim-params.ts', typeOnly: false },
        { from: 'harness/report/report-schema.ts', to: 'harness/sim/index.ts', typeOnly: false },
        { from: 'harness/commands/record.ts', to: 'harness/sim/population/sim-setup.ts', typeOnly: false },
        { from: 'harness/replay/replay.ts', to: 'harness/sim/corpus-files.ts', typeOnly: false },
        { from: 'tests/harness/record/record.test.ts', to: 'harness/testing.ts', typeOnly: false },
        { from: 'tests/harness/record/record.test.ts', to: 'harness/record/record.ts', typeOnly: false },
        { from: 'harness/cli.ts', to: 'harness/testing.ts', typeOnly: false },
        { from: 'engine/index.ts', to: 'harness/testing.ts', typeOnly: true },
      ]),
    ).toMatchInlineSnapshot(`
      [
        "engine/solve.ts -> harness/journal.ts: engine/ must not import harness/",
        "engine/solve.ts -> harness/journal.ts: import harness/index.ts, not its internals",
        "site/src/pages/index.astro -> engine/index.ts: site/ imports nothing from harness/ or engine/ but harness/run-file-schemas.ts or harness/run-files.ts",
        "site/src/pages/run.astro -> harness/index.ts: site/ imports nothing from harness/ or engine/ but harness/run-file-schemas.ts or harness/run-files.ts",
        "site/scripts/make-site.ts -> harness/report/report-schema.ts: site/ imports nothing from harness/ or engine/ but harness/run-file-schemas.ts or harness/run-files.ts",
        "site/scripts/make-site.ts -> harness/report/report-schema.ts: import harness/index.ts, not its internals",
        "harness/report/write-report.ts -> site/src/lib/urls.ts: harness/ must not import site/",
        "harness/cli.ts -> engine/internal/output-cap.ts: import engine/index.ts, not its internals",
        "harness/cli.ts -> engine/internal/output-cap.ts: engine/internal is private",
        "harness/record/sweep-models.ts -> harness/sim/population/sim-setup.ts: harness/record/ never imports harness/sim/ (the command layer passes the population in)",
        "harness/grading/grader.ts -> harness/sim/index.ts: harness/grading/ never imports harness/sim/ (the command layer passes the population in)",
        "harness/cell/pair-run.ts -> harness/sim/draw.ts: harness/cell/ never imports harness/sim/ (the command layer passes the population in)",
        "harness/stats/holm.ts -> harness/sim/truth.ts: harness/stats/ never imports harness/sim/ (the command layer passes the population in)",
        "harness/report/write-report.ts -> harness/sim/corpus-files.ts: harness/report/ reaches harness/sim/ only through harness/report/planted-truth.ts",
        "harness/report/report-schema.ts -> harness/sim/index.ts: harness/report/ reaches harness/sim/ only through harness/report/planted-truth.ts",
        "tests/harness/record/record.test.ts -> harness/record/record.ts: import harness/index.ts or harness/testing.ts, not its internals",
        "harness/cli.ts -> harness/testing.ts: only tests/ imports harness/testing.ts",
        "engine/index.ts -> harness/testing.ts: engine/ must not import harness/",
        "engine/index.ts -> harness/testing.ts: import harness/index.ts, not its internals",
        "engine/index.ts -> harness/testing.ts: only tests/ imports harness/testing.ts",
      ]
    `);
  });
});
