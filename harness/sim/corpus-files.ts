import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { DefectTable, DefectTableError } from './defect-table.js';

/**
 * The IO shell of the SIMULATED corpus: the sqlcsv implementation and tests a simulated leaf
 * writes (harness/sim/corpus/), written for the sim from the spec and never taken from oracle/,
 * and its planted-defect table.
 */

/** Where the corpus lives. */
export const CORPUS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'corpus');

/** The defect table's file name inside the corpus folder (not part of a written tree). */
export const DEFECTS_FILE = 'defects.yaml';

/** Test files every tree with tests needs, whatever requirements it covers. */
export const TEST_SUPPORT_FILES: readonly string[] = Object.freeze(['tests/conftest.py', 'tests/sqlcsv_testkit.py']);

export interface SimCorpus {
  /** Relative path -> text: every file a complete tree holds (program and tests). */
  files: Record<string, string>;
  defects: DefectTable;
}

/** The corpus's own test file for one requirement (`tests/test_r07_*.py`), or undefined. */
export function testFileFor(files: Readonly<Record<string, string>>, requirement: string): string | undefined {
  const prefix = `tests/test_${requirement.toLowerCase()}_`;
  return Object.keys(files).find((f) => f.startsWith(prefix) && f.endsWith('.py'));
}

/** Reads and validates the defect table; a problem names the entry, the field and what is wrong. */
export async function loadDefectTable(file = path.join(CORPUS_DIR, DEFECTS_FILE)): Promise<DefectTable> {
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

/** The corpus's files (without bytecode caches and the defect table) and its defect table. */
export async function readCorpus(dir = CORPUS_DIR): Promise<SimCorpus> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files: Record<string, string> = {};
  const paths = entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((rel) => rel !== DEFECTS_FILE && !rel.split('/').includes('__pycache__') && !rel.endsWith('.pyc'))
    .sort();
  for (const rel of paths) files[rel] = await readFile(path.join(dir, rel), 'utf8');
  return { files, defects: await loadDefectTable(path.join(dir, DEFECTS_FILE)) };
}
