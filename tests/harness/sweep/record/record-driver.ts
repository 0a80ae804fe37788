import { recordSim, type SimRecordOptions } from './record-fixture.js';
import { type RecordFlags } from '../../../../harness/index.js';

/** A child process running one simulated sweep (record-fixture), so a test can SIGKILL it mid-sweep. argv[2]: JSON {out, flags, options}. */
const { out, flags, options } = JSON.parse(process.argv[2]!) as { out: string; flags: RecordFlags; options: SimRecordOptions };
const result = await recordSim(out, flags, options);
process.exitCode = result.exit;
