import { z } from 'zod';
import { normalCdfAccurate as normalCdf } from './internal/normal-tail.js';
import { normalQuantile } from './t-distribution.js';

/**
 * Lan–DeMets spending functions (Lan & DeMets 1983): how much of a total error rate a
 * group-sequential design may have spent by information fraction t (pairs measured over pairs
 * planned for the primary comparison). The spending function, not a fixed number of looks,
 * is what a design declares, so looks may fall at any fractions and still keep the total.
 *
 * - `obrien_fleming`: α*(t) = 2 − 2Φ(z₁₋ₐ/₂ / √t). Spends almost nothing early, so an early
 *   stop needs an overwhelming difference and the final boundary stays near the fixed design's.
 * - `pocock`: α*(t) = a·ln(1 + (e − 1)t). Spends evenly, so early stops are easier and the
 *   final boundary is paid for (2.20 rather than 1.96 at two looks).
 */
export const Spending = z.enum(['obrien_fleming', 'pocock']).describe('Lan–DeMets spending function: obrien_fleming (conservative early) or pocock (even).');
export type Spending = z.infer<typeof Spending>;

/** Cumulative error spent by information fraction t in [0, 1] for total `a` (0 < a < 1). */
export function spentAlpha(spending: Spending, a: number, t: number): number {
  if (!(a > 0 && a < 1)) throw new RangeError(`the total to spend must lie strictly between 0 and 1, got ${a}`);
  if (!(t >= 0 && t <= 1)) throw new RangeError(`the information fraction must lie in [0, 1], got ${t}`);
  if (t === 0) return 0;
  if (t === 1) return a;
  switch (spending) {
    case 'obrien_fleming':
      return 2 - 2 * normalCdf(normalQuantile(1 - a / 2) / Math.sqrt(t));
    case 'pocock':
      return a * Math.log(1 + (Math.E - 1) * t);
    default:
      throw new RangeError(`unknown spending function ${JSON.stringify(spending)}: use obrien_fleming or pocock`);
  }
}
