import { InvalidArgumentError } from 'commander';

/** Commander value parser: a whole number >= 1, or a one-line error naming what was given. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) {
    throw new InvalidArgumentError(`expected a whole number of at least 1, got ${JSON.stringify(value)}.`);
  }
  return n;
}
