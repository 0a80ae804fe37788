// `npm run bench`: prints measured figures. Targets live here as printed ratios, never as
// timed assertions in the unit tests, because these machines are noisy.
import { cpus } from 'node:os';
import { gradeBench } from './grade.bench.js';
import { journalBench } from './journal.bench.js';
import { recordBench } from './record.bench.js';
import { reportBench } from './report.bench.js';
import { sandboxBench } from './sandbox.bench.js';
import { table, type Figure } from './stats.js';

const figures: Figure[] = [];
figures.push(...(await journalBench()));
figures.push(...(await reportBench()));
const sandbox = await sandboxBench();
figures.push(...sandbox.figures);
figures.push(...(await gradeBench(sandbox.floorMs)));
figures.push(...(await recordBench()));
console.log(`\nbench on ${process.platform}/${process.arch}, ${cpus().length} cores, node ${process.version}, ${new Date().toISOString()}`);
console.log(`ratios are to the floor: the median of \`docker run --rm <image> true\` (${sandbox.floorMs} ms) in this same run\n`);
console.log(table(figures));
