import { specDir } from '../../harness/index.js';
import { loadTaskDefinition } from '../../harness/index.js';
import { corpusDir, loadDefectTable, readCorpus, DEFECTS_FILE, type SimCorpus } from '../../harness/testing.js';
import path from 'node:path';

/** The first task's definition (spec/sqlcsv/task.yaml), as the simulated population reads it. */
export const SQLCSV_TASK = await loadTaskDefinition(specDir('sqlcsv'));

/** The first task's simulated corpus folder, harness/sim/corpus/sqlcsv/. */
export const SQLCSV_CORPUS_DIR = corpusDir('sqlcsv');

/** The first task's simulated corpus, read as the population reads it. */
export function sqlcsvCorpus(): Promise<SimCorpus> {
  return readCorpus(SQLCSV_TASK);
}

/** The first task's planted-defect table. */
export function sqlcsvDefectTable() {
  return loadDefectTable(path.join(SQLCSV_CORPUS_DIR, DEFECTS_FILE));
}
