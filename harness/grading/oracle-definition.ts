import path from 'node:path';
import { z } from 'zod';
import { readDataFile } from '../internal/data-file.js';
import { OracleInvalidError } from './oracle-invalid-error.js';

/**
 * `oracle/<task>/oracle.yaml`: how a task's held-out oracle grades. The runner and its fork
 * server are shared (oracle/runner/); a task brings its judge (a Python file defining
 * `judge(case, run)`, with the modules it imports) and its cases: a folder of YAML lists, or a
 * recipe (a TypeScript module exporting `deriveCases(requirements)`) that derives them at run
 * time, for a task graded by examples published in a pinned package.
 */
const ModuleFile = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*\.py$/, 'is not a module file of the oracle folder (name.py, no path)')
  .refine((f) => f !== 'runner.py' && f !== 'fork_server.py', "is the shared runner's own file name");

export const OracleDefinition = z.strictObject({
  version: z.literal(1).describe('Format of this file. Always 1.'),
  judge: ModuleFile.describe('The judge: defines judge(case, run), which returns why a case failed (naming the kind of difference only) or None.'),
  judge_modules: z.array(ModuleFile).default([]).describe('Modules of the oracle folder the judge imports (e.g. a normaliser). Default: none.'),
  cases: z.union([
    z.strictObject({ dir: z.string().regex(/^[A-Za-z0-9_-]+$/, 'is not a folder name of the oracle folder').describe('A folder of YAML lists of cases.') }),
    z.strictObject({ recipe: z.string().regex(/^[A-Za-z0-9_-]+\.ts$/, 'is not a TypeScript module of the oracle folder').describe('A module exporting deriveCases(requirements), the cases derived at run time.') }),
  ]),
});
export type OracleDefinition = z.infer<typeof OracleDefinition>;

/** The oracle's own definition file. */
export const ORACLE_FILE = 'oracle.yaml';

/** Reads and validates `<oracleDir>/oracle.yaml`. */
export async function loadOracleDefinition(oracleDir: string): Promise<OracleDefinition> {
  const file = path.join(oracleDir, ORACLE_FILE);
  const read = await readDataFile(file, { shownAs: file, schema: OracleDefinition, what: 'oracle definition', starter: 'declare version: 1, judge and cases (see docs/adding-a-task.md)' });
  if (!read.ok) throw new OracleInvalidError(read.lines.join('\n'));
  const names = [read.value.judge, ...read.value.judge_modules];
  if (new Set(names).size !== names.length) throw new OracleInvalidError(`${file}: judge_modules: repeats a file (${names.join(', ')}); name each once`);
  return read.value;
}
