// `npm run bench`: prints measured figures. Targets live here as printed ratios, never as
// timed assertions in the unit tests, because these machines are noisy.
import { cpus } from 'node:os';
import { floorOnly, gradeBench } from './grade.bench.js';
import { journalBench } from './journal.bench.js';
import { recordBench } from './record.bench.js';
import { replayBench } from './replay.bench.js';
import { reportBench } from './report.bench.js';
import { sandboxBench } from './sandbox.bench.js';
import { workspaceTransportBench } from './workspace-transport.bench.js';
import { siteBench, sweepSiteBench } from './site.bench.js';
import { simBench } from './sim.bench.js';
import { startupBench } from './startup.bench.js';
import { table, type Figure } from './stats.js';
import { throughputBench } from './throughput.bench.js';

// `npm run bench -- grade` measures grading against the floor only, skipping the sandbox figures.
const only = process.argv[2];
// `npm run bench -- transport` measures the workspace transports (archive against bind) alone.
if (only === 'transport') {
  console.log(table(await workspaceTransportBench(5)));
  process.exit(0);
}
// `npm run bench -- startup` measures the CLI's start alone: `harness --version` compiled against tsx.
if (only === 'startup') {
  const r = await startupBench();
  console.log(`${table(r.figures)}\n\n${r.lines.join('\n')}`);
  process.exit(0);
}
// `npm run bench -- replay` replays the committed example run alone.
if (only === 'replay') {
  const r = await replayBench();
  console.log(`${table(r.figures)}\n\n${r.lines.join('\n')}`);
  process.exit(0);
}
// `npm run bench -- site` measures the results site alone: 100 runs, then the 23,000-session sweep.
if (only === 'site') {
  const results = [await siteBench(), await sweepSiteBench()];
  console.log(`${table(results.flatMap((r) => r.figures))}\n\n${results.flatMap((r) => r.lines).join('\n')}`);
  process.exit(0);
}
// `npm run bench -- scale` measures the sweep at full scale alone (issue 22): a synthetic 23,000-session
// journal resumed, reported and built into a site, then one Docker cap-3 pair recorded over HTTP.
if (only === 'scale') {
  const { scaleBench } = await import('./scale.bench.js');
  const r = await scaleBench();
  console.log(`${table(r.figures)}\n\n${r.lines.join('\n')}`);
  process.exit(0);
}
// `npm run bench -- grade-load [runs] [task ...]` grades each task's reference and a slow tree under a CPU hog and without (issue 31).
if (only === 'grade-load') {
  const { gradeLoadBench } = await import('./grade-load.bench.js');
  const [runs, ...tasks] = process.argv.slice(3);
  const trees = process.env.RDH_GRADE_LOAD_TREES?.split(',');
  const modes = process.env.RDH_GRADE_LOAD_MODES?.split(',') as ('fork' | 'exec')[] | undefined;
  if (runs !== undefined && !/^[1-9][0-9]*$/.test(runs)) throw new Error(`grade-load: runs must be a positive whole number, not ${runs}`);
  const r = await gradeLoadBench({ runs: Number(runs ?? 5), tasks: tasks.length ? tasks : ['sqlcsv', 'commonmark'], trees, modes });
  console.log(r.lines.join('\n'));
  process.exit(r.ok ? 0 : 1);
}
// `npm run bench -- witness` grades each task's reference with the whole oracle and with its witness cases, alone.
if (only === 'witness') {
  const { witnessBench } = await import('./witness.bench.js');
  const r = await witnessBench();
  console.log(`${table(r.figures)}\n\n${r.lines.join('\n')}`);
  process.exit(0);
}
// `npm run bench -- throughput` measures how close sweeps run to the provider's limits (no Docker), alone.
if (only === 'throughput') {
  console.log((await throughputBench()).lines.join('\n'));
  process.exit(0);
}
const figures: Figure[] = [];
const startup = only === 'grade' ? undefined : await startupBench();
if (startup) figures.push(...startup.figures);
if (only !== 'grade') {
  figures.push(...(await journalBench()));
  figures.push(...(await reportBench()));
}
const sandbox = only === 'grade' ? await floorOnly() : await sandboxBench();
figures.push(...sandbox.figures);
const grading = await gradeBench(sandbox.floorMs);
figures.push(...grading.figures);
const site = only === 'grade' ? undefined : await siteBench();
const sweepSite = only === 'grade' ? undefined : await sweepSiteBench();
if (only !== 'grade') {
  figures.push(...(await workspaceTransportBench(5)));
  figures.push(...site!.figures, ...sweepSite!.figures);
}
if (only !== 'grade') figures.push(...(await simBench()));
if (only !== 'grade') figures.push(...(await recordBench()));
const replay = only === 'grade' ? undefined : await replayBench();
if (replay) figures.push(...replay.figures);
console.log(`\nbench on ${process.platform}/${process.arch}, ${cpus().length} cores, node ${process.version}, ${new Date().toISOString()}`);
console.log(`ratios are to the floor: the median of \`docker run --rm <image> true\` (${sandbox.floorMs} ms) in this same run\n`);
console.log(table(figures));
console.log(`\n${grading.summary}`);
if (site) console.log(`\n${site.lines.join('\n')}`);
if (sweepSite) console.log(sweepSite.lines.join('\n'));
if (startup) console.log(`\n${startup.lines.join('\n')}`);
if (replay?.lines.length) console.log(`\n${replay.lines.join('\n')}`);
