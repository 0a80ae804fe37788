import { bufferIo, recordSim, type SimRecordOptions } from './record-fixture.js';
import { exitCodeFor, type RecordFlags } from '../../../harness/index.js';

/**
 * A child process running one simulated sweep (record-fixture), so a test can SIGKILL it
 * mid-sweep or take its Docker daemon away. argv[2]: JSON {out, flags, options}. It exits as
 * the CLI would (an error gets its exit code) and prints what the command printed to stderr.
 */
const { out, flags, options } = JSON.parse(process.argv[2]!) as { out: string; flags: RecordFlags; options: SimRecordOptions };
const io = bufferIo();
try {
  const result = await recordSim(out, flags, options, io);
  process.exitCode = result.exit;
} catch (error) {
  io.err(`harness: ${(error as Error).message}\n`);
  process.exitCode = exitCodeFor(error);
} finally {
  process.stderr.write(io.text());
}
