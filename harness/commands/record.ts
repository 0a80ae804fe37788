import { Command, InvalidArgumentError } from 'commander';
import { concurrencyArg, positiveInt } from '../internal/cli-parsers.js';
import { collectDockerHost } from '../sandbox/docker-hosts.js';
import type { CliIo } from '../io.js';
import { SIM_ENDPOINT } from '../providers/engine-roster.js';
import { recordRun, type RecordFlags, type RecordResult, type RecordSeams } from '../record/record.js';
import type { SimulatedPopulation } from '../record/sweep-models.js';
import { corpusDir } from '../sim/corpus-files.js';
import { simPairsOf, simSetup } from '../sim/population/sim-setup.js';

/**
 * The built-in SIMULATED population, injected here at the command layer: the record loop
 * (harness/record/) never imports sim/ (tests/architecture.test.ts holds it).
 */
export const SIM_POPULATION: SimulatedPopulation = {
  corpusDir,
  async clientFor({ manifest, specDir, cap, repetition, requirements }) {
    const setup = await simSetup({
      params: manifest.simulated, maxDepth: cap, repetition, mergeAttempts: manifest.merge_attempts, pairing: manifest.pairing, maxChildren: manifest.max_children,
      requirements, specDir, pairs: simPairsOf(manifest),
    });
    return setup.clients[SIM_ENDPOINT]!;
  },
};

/** `harness record` on the built-in simulated population; `seams` are what tests (and only tests) replace. */
export function runRecord(file: string, flags: RecordFlags, io: CliIo, seams: RecordSeams = {}): Promise<RecordResult> {
  return recordRun(file, flags, io, SIM_POPULATION, seams);
}

/** Commander value parser for `--depths 1,2`: positive whole numbers, comma-separated, duplicates dropped. */
function capList(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  if (!parts.every((part) => /^[1-9][0-9]*$/.test(part))) {
    throw new InvalidArgumentError(`expected caps as whole numbers of at least 1 separated by commas, e.g. 1,2; got ${JSON.stringify(value)}.`);
  }
  return [...new Set(parts.map(Number))];
}

/** `harness record`; `onExit` receives the exit code of a sweep that ended without an error (130 interrupted, 5 quota). */
export function recordCommand(io: CliIo, onExit: (code: number) => void): Command {
  return new Command('record')
    .description('record a sweep: every cell of the manifest (or --depths) on the engine, graded in Docker, into a resumable run folder')
    .argument('<manifest>', 'sweep manifest (YAML), e.g. manifests/smoke.yaml')
    .option('--depths <caps>', 'only these caps, comma-separated, e.g. 1,2 (default: every cap in the manifest)', capList)
    .option('--repetitions <n>', 'only repetitions 1..N of each staged cap: a stage of a sequential design; the same command without it records the rest (default: all)', positiveInt)
    .option('--max-sessions <n>', "lower the session ceiling for this invocation; never above the manifest's", positiveInt)
    .option('--out <dir>', 'the run folder: new, or an existing one to resume (default: runs/<manifest name>-<UTC time>)')
    .option('--providers <file>', 'provider configuration (default: $RDH_PROVIDERS; not needed when both pairs are sim)')
    .option('--concurrency <n|min-start-max>', "sessions in flight across the whole sweep: N keeps N fixed; MIN-START-MAX (e.g. 4-20-100) adapts calls in flight per provider key to what it allows (default: the manifest's concurrency)", concurrencyArg)
    .option('--docker-host <spec>', 'run sandboxes on this Docker host: URL[,capacity=N][,transport=bind|archive|auto][,tls=DIR | ,ca=FILE,cert=FILE,key=FILE]; repeat for more, spread by free capacity (replaces docker_hosts of --providers; default: the daemon DOCKER_HOST names)', collectDockerHost)
    .option('--keep-workspaces', 'keep every graded root tree in cells/<cell>/tree (default: only failed cells keep theirs)', false)
    .option('--retry-unavailable', 'also re-run the cells an earlier invocation left unavailable for a permanent reason (transient ones are always re-run)', false)
    .option('--allow-code-change', 'resume a journal begun on other code, with a CODE CHANGED caveat on every artifact', false)
    .option('--json', 'print the summary as JSON at the end', false)
    .addHelpText(
      'after',
      [
        '',
        'Staging: record the cheap end first (--depths 1,2), read the curve, then run',
        '--depths 3,4 with the same --out: one journal, one curve. --repetitions N stages by',
        'repetitions instead; harness report --look rules between stages (see docs/experiment-design.md).',
        'Resuming: run the same command with the same --out. Finished cells are kept; an',
        'interrupted cell, or one left unavailable by a provider that failed for its whole',
        'patience, is re-run with every transcribed call answered from its transcript, so no',
        'completed call is paid twice. A changed manifest, spec, oracle, roster or code is',
        'refused (exit 2, nothing written).',
        'Exit 0 only when every staged cell was measured; 8 a ceiling stopped it, 9 a cell was',
        'lost, 3 Docker or a provider was unreachable (see docs/recording-and-resuming.md, "Resuming a sweep").',
        "Ceilings: max_sessions counts across resumes and is checked before every session,",
        'max_cost_usd before every call (paid so far plus the worst case of the calls in flight);',
        'each session is bounded by the manifest unit (max_turns, token_ceiling, cost_ceiling_usd).',
        'Ctrl-C stops dispatching, lets in-flight sessions finish and exits 130.',
        '',
      ].join('\n'),
    )
    .action(async (file: string, flags: RecordFlags) => {
      const result = await runRecord(file, flags, io);
      onExit(result.exit);
    });
}
