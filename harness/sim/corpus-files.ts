import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '../paths.js';
import type { TaskDefinition } from '../task/task-definition.js';
import { DefectTable, DefectTableError } from './defect-table.js';

/**
 * The IO shell of the SIMULATED corpora: for each task, the implementation and tests a simulated
 * leaf writes (harness/sim/corpus/<task>/), written for the sim from the task's spec and never
 * taken from oracle/, and its planted-defect table. Nothing here knows a task: the task's
 * definition (spec/<task>/task.yaml) names its deliverable, and the corpus folder holds the rest.
 */

/** The folder of every task's corpus, one subfolder per task. */
export const CORPORA_DIR = path.join(REPO_ROOT, 'harness', 'sim', 'corpus');

/** Where one task's corpus lives: `harness/sim/corpus/<task>/`. */
export function corpusDir(task: string): string {
  return path.join(CORPORA_DIR, task);
}

/** The defect table's file name inside the corpus folder (not part of a written tree). */
export const DEFECTS_FILE = 'defects.yaml';

/** A requirement's own test file in a corpus: `tests/test_r07_<anything>.py`. */
const REQUIREMENT_TEST = /^tests\/test_r\d{2}_[^/]*\.py$/;

export interface SimCorpus {
  /** Relative path -> text: every file a complete tree holds (program and tests). */
  files: Record<string, string>;
  defects: DefectTable;
  /** What the task's definition says of the deliverable the corpus implements: its package, command and entry points. */
  deliverable: TaskDefinition['deliverable'];
}

/** The corpus's own test file for one requirement (`tests/test_r07_*.py`), or undefined. */
export function testFileFor(files: Readonly<Record<string, string>>, requirement: string): string | undefined {
  const prefix = `tests/test_${requirement.toLowerCase()}_`;
  return Object.keys(files).find((f) => f.startsWith(prefix) && f.endsWith('.py'));
}

/**
 * Test files every tree with tests needs, whatever requirements it covers: every file under
 * tests/ that is not one requirement's own test (pytest's conftest.py, a shared test kit).
 */
export function testSupportFiles(corpus: Pick<SimCorpus, 'files'>): string[] {
  return Object.keys(corpus.files).filter((f) => f.startsWith('tests/') && !REQUIREMENT_TEST.test(f)).sort();
}

/** Reads and validates a defect table; a problem names the entry, the field and what is wrong. */
export async function loadDefectTable(file: string): Promise<DefectTable> {
  let raw: unknown;
  try {
    raw = parse(await readFile(file, 'utf8'));
  } catch (cause) {
    throw new DefectTableError(`${file}: cannot read the defect table: ${(cause as Error).message}`, { cause });
  }
  const parsed = DefectTable.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new DefectTableError(`${file}: ${issue.path.join('.') || '(top level)'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * A task's corpus: its files (without bytecode caches and the defect table), its defect table,
 * and the deliverable its task declares. `dir` defaults to the task's folder under
 * harness/sim/corpus/; tests pass a scratch copy.
 */
export async function readCorpus(task: Pick<TaskDefinition, 'name' | 'deliverable'>, dir = corpusDir(task.name)): Promise<SimCorpus> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch((cause: Error) => {
    throw new DefectTableError(`${dir}: cannot read the simulated corpus of task ${task.name}: ${cause.message}; a task's corpus lives in harness/sim/corpus/<task>/`, { cause });
  });
  const files: Record<string, string> = {};
  const paths = entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => rel !== DEFECTS_FILE && !rel.split('/').includes('__pycache__') && !rel.endsWith('.pyc'))
    .sort();
  for (const rel of paths) files[rel] = await readFile(path.join(dir, rel), 'utf8');
  return { files, defects: await loadDefectTable(path.join(dir, DEFECTS_FILE)), deliverable: task.deliverable };
}
