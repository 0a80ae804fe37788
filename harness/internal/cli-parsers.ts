import { InvalidArgumentError } from 'commander';
import { parseConcurrencyFlag, type Concurrency } from '../manifest/concurrency.js';

/** Commander value parser: a whole number >= 1, or a one-line error naming what was given. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(`expected a whole number of at least 1, got ${JSON.stringify(value)}.`);
  }
  return n;
}

/** Commander value parser for a TCP port: a whole number from 0 (any free port) to 65535. */
export function portNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n > 65_535) throw new InvalidArgumentError(`expected a port from 0 to 65535 (0 picks a free one), got ${JSON.stringify(value)}.`);
  return n;
}

/** Commander value parser for `--concurrency`: N (fixed) or MIN-START-MAX (adaptive), or a one-line error. */
export function concurrencyArg(value: string): Concurrency {
  try {
    return parseConcurrencyFlag(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}
