import path from 'node:path';
import { REPO_ROOT, runReplay, type ReplayResult } from '../../harness/index.js';
import { figure, type Figure } from './stats.js';

/**
 * `harness replay runs/example-sim --allow-code-change`: the committed example run re-executed
 * in Docker with every model call served from its transcripts. Here, not in the tests, because
 * the committed run may lag the engine (hence --allow-code-change): the figure says how many
 * cells still reproduce, and which diverged first, beside the time it took.
 */
export async function replayBench(): Promise<{ figures: Figure[]; lines: string[] }> {
  const run = path.join(REPO_ROOT, 'runs/example-sim');
  const t = performance.now();
  let result: ReplayResult;
  try {
    result = await runReplay(run, { allowCodeChange: true }, { out: () => undefined, err: () => undefined, isTty: false });
  } catch (error) {
    const ms = performance.now() - t;
    return { figures: [figure('replay: runs/example-sim (sim, Docker)', [ms], undefined, `refused: ${(error as Error).message}`)], lines: [] };
  }
  const ms = performance.now() - t;
  const reproduced = result.cells.filter((c) => c.status === 'reproduced').length;
  const diverged = result.cells.filter((c) => c.status === 'diverged');
  const note = `${reproduced}/${result.cells.length} cells reproduced, ${diverged.length} diverged; ${result.calls.served} calls served from transcripts, ${result.calls.live} live`;
  return {
    figures: [figure('replay: runs/example-sim (sim, Docker)', [ms], undefined, note)],
    lines: ['replay of runs/example-sim:', ...result.cells.map((c) => `  ${c.cell} ${c.status}${c.detail[0] ? ` ${c.detail[0]}` : ''}`)],
  };
}
