/**
 * How the plan writes numbers: rounded for reading, since the model behind them is a scenario.
 * A figure that is not finite is a bug upstream (the loader refuses manifests whose projection
 * cannot be counted), so it throws rather than print a symbol that reads like a measurement.
 */

function finite(n: number): number {
  if (!Number.isFinite(n)) throw new RangeError(`a figure to print is ${n}; figures must be finite (this is a bug)`);
  return n;
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** A count, rounded to a whole number, with thousands separators: 7,000. */
export function count(n: number): string {
  return grouped.format(Math.round(finite(n)));
}

/** Tokens to three significant figures: 950k, 36.0M, 1.35B. */
export function tokens(n: number): string {
  const units: Array<[number, string]> = [
    [1e3, 'k'],
    [1e6, 'M'],
    [1e9, 'B'],
    [1e12, 'T'],
  ];
  finite(n);
  let picked: [number, string] | undefined;
  // Pick by the ROUNDED figure, so 999,600 reads 1.00M rather than 1.00e+3k.
  for (const unit of units) if (Number((n / unit[0]).toPrecision(3)) >= 1) picked = unit;
  return picked ? `${(n / picked[0]).toPrecision(3)}${picked[1]}` : count(n);
}

/** US dollars: cents below $100, whole dollars with separators above. */
export function usd(n: number): string {
  if (finite(n) < 100) return `$${n.toFixed(2)}`;
  return `$${grouped.format(Math.round(n))}`;
}

/** A parameter as written: 4, 4.4, 0.15 (no float noise). */
export function plain(n: number): string {
  return String(Number(finite(n).toPrecision(12)));
}
