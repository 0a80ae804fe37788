import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../../harness/index.js';
import { figure, sample, type Figure } from './stats.js';

const run = promisify(execFile);

/**
 * How long the CLI takes to start: `harness --version` through the published binary (the
 * compiled dist/, which `npm ci` builds), against the same through tsx (`npm run harness`, which
 * compiles the sources on every start), in the same run. Goal: the compiled start at most 0.3 s
 * on an idle 2-core machine; the ratio says how much of a start tsx costs whatever the load.
 */
export async function startupBench(n = 5): Promise<{ figures: Figure[]; lines: string[] }> {
  if (!existsSync(path.join(REPO_ROOT, 'dist', 'harness', 'cli.js'))) {
    return { figures: [], lines: ['harness --version: dist/ is not built (npm run build); start time not measured'] };
  }
  const bin = path.join(REPO_ROOT, 'harness', 'bin.js');
  const cli = path.join(REPO_ROOT, 'harness', 'cli.ts');
  const compiled = await sample(n, () => run(process.execPath, [bin, '--version'], { cwd: REPO_ROOT }));
  const tsx = await sample(n, () => run(process.execPath, ['--import', 'tsx', cli, '--version'], { cwd: REPO_ROOT }));
  const plan = await sample(n, () => run(process.execPath, [bin, 'plan', '--help'], { cwd: REPO_ROOT }));
  const figures = [
    figure('harness --version (compiled, dist/)', compiled, undefined, 'goal <= 300 ms idle'),
    figure('harness --version (tsx)', tsx),
    figure('harness plan --help (compiled)', plan),
  ];
  const [c, t] = [figures[0]!.medianMs, figures[1]!.medianMs];
  const verdict = c <= 300 ? 'met' : 'NOT met (on a loaded machine the ratio is the figure to read)';
  return { figures, lines: [`harness --version starts in ${c.toFixed(0)} ms compiled, ${t.toFixed(0)} ms through tsx: ${(c / t).toFixed(2)} of tsx's start, in this run; goal <= 300 ms: ${verdict}`] };
}
