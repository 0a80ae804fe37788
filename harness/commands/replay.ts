import { Command } from 'commander';
import type { CliIo } from '../io.js';
import { runReplay, type ReplayFlags } from '../replay/replay.js';

/** `harness replay`; `onExit` receives 0 when every replayed cell reproduced, 7 when one diverged. */
export function replayCommand(io: CliIo, onExit: (code: number) => void): Command {
  return new Command('replay')
    .description('re-execute a recorded run in Docker with every model call answered from its transcripts, and check that it reproduces')
    .argument('<run>', 'a run folder written by harness record, e.g. runs/example-sim')
    .option('--cell <id>', 'replay only this cell, e.g. cap1-rep1-gated (default: every measured cell)')
    .option('--allow-code-change', 'replay a run recorded on other code, with a CODE CHANGED caveat', false)
    .option('--json', 'print the result as JSON', false)
    .addHelpText(
      'after',
      [
        '',
        'No model is called: every request must match the recorded one (after the documented',
        'normalisation of timings, hex ids and times); a request the record does not hold is a',
        'divergence, never a live call. The node tree, its check results, the grade and the',
        'measurement are compared with the recording; each cell prints `reproduced` or its first',
        'divergence. Exit 0 when every cell reproduces, 7 when one diverges, 2 for a bad run folder,',
        'cell id, or a spec, held-out grader, sim corpus or code that differs from the recording.',
        '',
      ].join('\n'),
    )
    .action(async (run: string, flags: ReplayFlags) => {
      const result = await runReplay(run, flags, io);
      onExit(result.exit);
    });
}
