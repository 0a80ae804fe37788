// `npm run bench`: prints measured figures. Targets live here as printed ratios, never as
// timed assertions in the unit tests, because these machines are noisy.
import { sandboxBench } from './sandbox.bench.js';
import { table, type Figure } from './stats.js';

const figures: Figure[] = [];
const sandbox = await sandboxBench();
figures.push(...sandbox.figures);
console.log(`\nbench on ${process.platform}/${process.arch}, node ${process.version}, ${new Date().toISOString()}\n`);
console.log(table(figures));
