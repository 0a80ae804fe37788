import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { RdhError } from '../../engine/index.js';
import { loadOracleDefinition } from './oracle-definition.js';
import { OracleInvalidError } from './oracle-invalid-error.js';
import { importRecipe } from './recipe-import.js';
import type { Requirement } from './spec-requirements.js';

// Re-exported where task recipes (oracle/<task>/cases.ts) and the harness's entry have always found it.
export { OracleInvalidError };

/**
 * One behavioural case of a held-out oracle. Cases never leave oracle/: they are staged
 * into a grading container and deleted there before any graded program runs.
 */
export const OracleCase = z
  .object({
    /** Unique; begins with the requirement it decides. */
    id: z.string().regex(/^R\d{2}-[A-Za-z0-9_-]+$/),
    req: z.string().regex(/^R\d{2}$/),
    /** Data set folder under the oracle's data/; `{data}` in args becomes its path. */
    data: z.string().optional(),
    args: z.array(z.string()),
    stdin: z.string().optional(),
    expect: z
      .object({
        exit: z.number().int().min(0).max(255),
        /** Exact stdout: only for the requirements that own rendering (and the usage line). */
        stdout: z.string().optional(),
        /**
         * The result as data, parsed from csv or json stdout: rows, values as rendered, in
         * order unless `ordered: false`; the header (output names) only when given, for
         * the requirements about names. A rendering or naming bug then fails the
         * requirements that own rendering or naming, not every requirement whose cases print.
         */
        result: z
          .object({ header: z.array(z.string()).optional(), rows: z.array(z.array(z.unknown())), ordered: z.boolean().optional() })
          .strict()
          .optional(),
        /** Default: nonempty when exit != 0, any otherwise. `empty`: the positive twin of an error case. */
        stderr: z.enum(['nonempty', 'empty', 'any']).optional(),
        /** HTML stdout must equal once both are normalised by the task's normaliser (a judge module). */
        html: z.string().optional(),
        /**
         * What the HTML comparison forgives of whitespace: `spec` (default), what the spec's own test
         * tooling forgives; `exact`, only the line feeds between blocks (the requirements about whitespace).
         */
        whitespace: z.enum(['spec', 'exact']).optional(),
      })
      .strict(),
    /** Whether SQLite on the same data must agree (a cross-check run by the tests); only for cases that query data. */
    sqlite: z
      .union([
        z.literal('same'),
        z.object({ differs: z.string().min(1) }).strict(),
        z.object({ skip: z.string().min(1) }).strict(),
      ])
      .optional(),
  })
  .strict();
export type OracleCase = z.infer<typeof OracleCase>;

export interface Oracle {
  name: string;
  dir: string;
  /** The judge and the modules it imports, staged beside the shared runner (the judge first). */
  judgeFiles: string[];
  cases: OracleCase[];
  /** Requirement id -> the ids of the cases that decide it. */
  requirementMap: Record<string, string[]>;
  /** Data set names the cases use. */
  datasets: string[];
}

/** Each YAML list of a cases folder, as the file name and its items. */
async function casesFromFolder(casesDir: string): Promise<Array<{ file: string; items: unknown[] }>> {
  const files = (await readdir(casesDir)).filter((f) => f.endsWith('.yaml')).sort();
  const out: Array<{ file: string; items: unknown[] }> = [];
  for (const file of files) {
    const list = z.array(z.unknown()).safeParse(parse(await readFile(path.join(casesDir, file), 'utf8')));
    if (!list.success) throw new OracleInvalidError(`${file}: expected a YAML list of cases`);
    out.push({ file, items: list.data });
  }
  return out;
}

/** The cases a recipe derives (its deriveCases), as one list named after the recipe. */
async function casesFromRecipe(file: string, requirements: Requirement[]): Promise<Array<{ file: string; items: unknown[] }>> {
  const mod = (await importRecipe(file).catch((cause) => {
    throw new OracleInvalidError(`${path.basename(file)}: cannot load the case recipe (${(cause as Error).message})`, { cause });
  })) as { deriveCases?: unknown };
  if (typeof mod.deriveCases !== 'function') throw new OracleInvalidError(`${path.basename(file)}: a case recipe exports deriveCases(requirements)`);
  const items: unknown = await Promise.resolve((mod.deriveCases as (r: Requirement[]) => unknown)(requirements)).catch((cause: unknown) => {
    // Under the compiled CLI the recipe throws the sources' copy of this class: same code, other class.
    if (!(cause instanceof RdhError) && (cause as { code?: unknown } | null)?.code === 'oracle_invalid') throw new OracleInvalidError((cause as Error).message, { cause });
    throw cause;
  });
  if (!Array.isArray(items)) throw new OracleInvalidError(`${path.basename(file)}: deriveCases returned no list of cases`);
  return [{ file: path.basename(file), items }];
}

/** Loads the oracle's cases (its folder of YAML lists, or its recipe), validating each case and the oracle as a whole against the spec. */
export async function loadOracle(dir: string, requirements: Requirement[]): Promise<Oracle> {
  const definition = await loadOracleDefinition(dir);
  const lists = 'dir' in definition.cases ? await casesFromFolder(path.join(dir, definition.cases.dir)) : await casesFromRecipe(path.join(dir, definition.cases.recipe), requirements);
  const cases: OracleCase[] = [];
  for (const { file, items } of lists) {
    items.forEach((item, i) => {
      const parsed = OracleCase.safeParse(item);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new OracleInvalidError(`${file}[${i}]: ${issue.path.join('.')}: ${issue.message}`);
      }
      const format = formatOf(parsed.data.args);
      if (parsed.data.expect.result && format !== 'csv' && format !== 'json') {
        throw new OracleInvalidError(`${file}[${i}]: case ${parsed.data.id} compares a result as data, which needs --format csv or json`);
      }
      if (!parsed.data.id.startsWith(`${parsed.data.req}-`)) {
        throw new OracleInvalidError(`${file}[${i}]: id ${parsed.data.id} must begin with its requirement ${parsed.data.req}`);
      }
      cases.push(parsed.data);
    });
  }
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.id)) throw new OracleInvalidError(`duplicate case id ${c.id}`);
    seen.add(c.id);
  }
  const known = new Set(requirements.map((r) => r.id));
  const requirementMap: Record<string, string[]> = Object.fromEntries(requirements.map((r) => [r.id, []]));
  for (const c of cases) {
    if (!known.has(c.req)) throw new OracleInvalidError(`case ${c.id} decides ${c.req}, which the spec does not define`);
    requirementMap[c.req]!.push(c.id);
  }
  const datasets = [...new Set(cases.flatMap((c) => (c.data ? [c.data] : [])))].sort();
  for (const name of datasets) {
    const ok = await stat(path.join(dir, 'data', name)).then((s) => s.isDirectory(), () => false);
    if (!ok) throw new OracleInvalidError(`data set ${name} is used by a case but oracle data/${name} does not exist`);
  }
  return { name: path.basename(dir), dir, judgeFiles: [definition.judge, ...definition.judge_modules], cases, requirementMap, datasets };
}

/**
 * The oracle cut to the cases named (a requirement keeps only its named cases; one with none
 * left keeps none, and a grading then fails it), with only the data sets those cases use.
 * Throws an OracleInvalidError naming a case the oracle does not hold.
 */
export function oracleSubset(oracle: Oracle, ids: readonly string[]): Oracle {
  const keep = new Set(ids);
  const unknown = [...keep].filter((id) => !oracle.cases.some((c) => c.id === id));
  if (unknown.length) throw new OracleInvalidError(`the cases asked for are not in oracle ${oracle.name}: ${unknown.slice(0, 5).join(', ')}`);
  const cases = oracle.cases.filter((c) => keep.has(c.id));
  const requirementMap = Object.fromEntries(Object.entries(oracle.requirementMap).map(([r, list]) => [r, list.filter((id) => keep.has(id))]));
  const datasets = oracle.datasets.filter((d) => cases.some((c) => c.data === d));
  return { ...oracle, cases, requirementMap, datasets };
}

/** The --format a case's arguments ask for (the first one; giving it twice is an argument error). */
export function formatOf(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--format' && i + 1 < args.length) return args[i + 1]!;
    if (args[i]!.startsWith('--format=')) return args[i]!.slice('--format='.length);
  }
  return 'table';
}
