import path from 'node:path';
import { z } from 'zod';
import { RdhError } from '../../engine/index.js';
import { readDataFile } from '../internal/data-file.js';

/**
 * What the harness needs to know of a task, beyond its brief and its requirements: the one
 * declaration a task adds outside its own folders' contents. A task is a name with four places:
 *  - `spec/<task>/`: `SPEC.md` (what agents are handed), `requirements.yaml`, and this file,
 *    `task.yaml`, which states nothing an agent may not read (SPEC.md says the same entry
 *    points and command);
 *  - `oracle/<task>/`: the held-out grader (its runner's judge, reference, mutants, coverage,
 *    and its cases or the recipe that derives them);
 *  - `harness/sim/corpus/<task>/`: the SIMULATED population's implementation and defect table;
 *  - this declaration.
 * Nothing in harness/ or engine/ outside those folders names a task (tests/architecture.test.ts).
 */

const InsideTree = z
  .string()
  .min(1)
  .refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), 'must be a path inside the tree');
const RequirementId = z.string().regex(/^R\d{2}$/, 'is not a requirement id (R01, R02, ...)');

/** A document the brief carries beside SPEC.md, read from a pinned npm package at run time. */
export const BriefSource = z.strictObject({
  package: z.string().min(1).describe('The npm package it is read from, a pinned dependency of this project.'),
  version: z.string().min(1).describe('The exact version the package.json pins; a different installed version is refused.'),
  file: InsideTree.describe('The file inside the package (e.g. spec.txt).'),
  sections: z.array(z.string().min(1)).min(1).describe('Headings of the sections carried, in the package\'s own words; every other section is left out.'),
  strip_examples: z.boolean().describe('Remove every example (input and expected output) before the text reaches a brief. A task graded by the package\'s examples must say true.'),
  licence: z.string().min(1).describe('The SPDX id of the text\'s licence (e.g. CC-BY-SA-4.0).'),
  attribution: z.string().min(1).describe('The notice every brief and published transcript that carries the text prints with it.'),
});
export type BriefSource = z.infer<typeof BriefSource>;

export const TaskDefinition = z.strictObject({
  version: z.literal(1).describe('Format of this file. Always 1.'),
  name: z.string().regex(/^[a-z][a-z0-9-]*$/, 'is not a task name (lower case letters, digits and dashes)').describe('The task\'s name: its folder under spec/, oracle/ and harness/sim/corpus/.'),
  title: z.string().min(1).describe('One line a person reads on the site\'s index and in reports.'),
  deliverable: z.strictObject({
    language: z.string().min(1).describe('What the deliverable is written in, as SPEC.md states it (e.g. "Python 3.11, standard library only").'),
    package: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).describe('The package folder at the tree\'s root that the deliverable is.'),
    command: z.array(z.string().min(1)).min(1).describe('How a case runs the deliverable from the tree\'s root ([python3, -m, PACKAGE]).'),
    entry_points: z.array(InsideTree).min(1).describe('Files a tree must hold at its root to be runnable; a merged subtree without them is a piece, never graded.'),
  }),
  depends_on: z
    .record(RequirementId, z.array(RequirementId).min(1))
    .default({})
    .describe('Requirement -> the requirements its cases also exercise (their expected outputs rely on them). Every other pair of requirements is isolated: a case of one never depends on the features of another.'),
  brief: z
    .strictObject({ sources: z.array(BriefSource).default([]) })
    .default({ sources: [] })
    .describe('What the brief carries beside SPEC.md. Default: SPEC.md alone.'),
});
export type TaskDefinition = z.infer<typeof TaskDefinition>;

export class TaskInvalidError extends RdhError {
  readonly code = 'task_invalid';
}

/** The file in a spec folder that declares its task. */
export const TASK_FILE = 'task.yaml';

/** Reads and validates `<specDir>/task.yaml`; a problem is one line naming the field and the fix. */
export async function loadTaskDefinition(specDir: string): Promise<TaskDefinition> {
  const file = path.join(specDir, TASK_FILE);
  const read = await readDataFile(file, { shownAs: file, schema: TaskDefinition, what: 'task definition', starter: 'declare version: 1, name, title and deliverable (see docs/adding-a-task.md)' });
  if (!read.ok) throw new TaskInvalidError(read.lines.join('\n'));
  if (read.value.name !== path.basename(specDir)) throw new TaskInvalidError(`${file}: name: "${read.value.name}" is not the folder's name "${path.basename(specDir)}"; a task is named by its folder`);
  return read.value;
}
