import { parseArgs } from 'node:util';
import { sequentialCalibration, sequentialTable } from './sequential-calibration-support.js';

/**
 * `npm run calibration:sequential [-- --sweeps N --pool N --seed N]`: the long form of the
 * sequential calibration (tests/harness/stats/sequential-calibration.test.ts runs a short one
 * in `npm test`). Prints the table docs/sequential-calibration.md quotes, collapse mode off
 * and on. SIMULATED population, no Docker.
 */
const { values } = parseArgs({
  options: { sweeps: { type: 'string', default: '20000' }, pool: { type: 'string', default: '20000' }, seed: { type: 'string', default: '1' } },
});
const whole = (name: string, text: string, min: number): number => {
  const n = Number(text);
  if (!(Number.isInteger(n) && n >= min)) {
    console.error(`--${name} must be a whole number of at least ${min}, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return n;
};
const options = { sweeps: whole('sweeps', values.sweeps, 100), poolPairs: whole('pool', values.pool, 100), seed: whole('seed', values.seed, 0), collapse: [false, true] };
const started = Date.now();
console.log(sequentialTable(sequentialCalibration(options)));
console.log(`\n(${((Date.now() - started) / 1000).toFixed(0)} s; npm run calibration:sequential -- --sweeps ${options.sweeps} --pool ${options.poolPairs} --seed ${options.seed}; ${new Date().toISOString().slice(0, 10)})`);
