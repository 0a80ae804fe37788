import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exitCodeFor, runRecord } from '../../harness/index.js';
import { RECORD_MANIFEST, bufferIo, fakeGrade, simSeams } from '../harness/record/record-fixture.js';

/**
 * A child process recording the record tests' SIMULATED sweep at cap 1 on the host sandbox (no
 * Docker), whose grading of each cell waits until the file `<gates>/<cell id>` exists: the watch
 * test decides when each cell becomes measured (its cell_finished follows the grade), so what
 * the served site shows at each step is known, not raced. It writes `<gates>/<cell id>.grading` as
 * a cell's grading begins. argv[2]: JSON {out, gates}.
 */
const { out, gates } = JSON.parse(process.argv[2]!) as { out: string; gates: string };
const seams = simSeams();
seams.grade = async (tree, cell) => {
  // Said before waiting: under shared pairing both arms' sessions are over once the first grading begins.
  await writeFile(path.join(gates, `${cell}.grading`), '');
  while (!(await stat(path.join(gates, cell)).then(() => true, () => false))) await new Promise((r) => setTimeout(r, 100));
  return fakeGrade(tree);
};
const io = bufferIo();
try {
  process.exitCode = (await runRecord(RECORD_MANIFEST, { depths: [1], out }, io, seams)).exit;
} catch (error) {
  io.err(`harness: ${(error as Error).message}\n`);
  process.exitCode = exitCodeFor(error);
} finally {
  process.stderr.write(io.text());
}
