import { describe, expect, it } from 'vitest';
import { efficacyBoundaries, equalFractions, pairedTestPower, sequentialOperatingCharacteristics, sequentialPower, tBoundary } from '../../../harness/index.js';

/**
 * The power `harness plan` prints for a sequential design at few pairs, against a seeded Monte
 * Carlo of the rule a look applies (t statistics of the pairs so far, against the spent z
 * boundaries put on the t scale). The normal theory's power overstates it there by 3 to 4.5
 * points; the t-corrected drift comes within 1.5. Short form: 6,000 sweeps per design (SE about
 * 0.5 points); the long form, whose figures docs/experiment-design.md quotes, is
 * `RDH_SEQ_POWER_SWEEPS=200000 npx vitest run tests/harness/stats/sequential-power.test.ts`.
 */

const SWEEPS = Number(process.env.RDH_SEQ_POWER_SWEEPS ?? 6000);
const SD = 0.25;
const DELTA = 0.1;

/** A small seeded generator (mulberry32) and Box–Muller normals: the same draws on every machine. */
function normals(seed: number): () => number {
  let a = seed >>> 0;
  const uniform = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}

/** Share of staged sweeps whose looks cross the efficacy boundary in the planted direction. */
function monteCarloPower(spending: 'obrien_fleming' | 'pocock', looks: number, pairs: number, seed: number): number {
  const fractions = equalFractions(looks);
  const at = fractions.map((f) => Math.ceil(f * pairs - 1e-9));
  const bounds = efficacyBoundaries({ spending, alpha: 0.05, fractions: at.map((n) => n / pairs) }).z.map((z, k) => tBoundary(z, at[k]! - 1));
  const z = normals(seed);
  let hits = 0;
  for (let i = 0; i < SWEEPS; i++) {
    let sum = 0;
    let squares = 0;
    let n = 0;
    for (let k = 0; k < looks; k++) {
      for (; n < at[k]!; n++) {
        const d = DELTA + SD * z();
        sum += d;
        squares += d * d;
      }
      const mean = sum / n;
      const t = mean / Math.sqrt((squares - n * mean * mean) / (n - 1) / n);
      if (Math.abs(t) > bounds[k]!) {
        if (t > 0) hits++;
        break;
      }
    }
  }
  return hits / SWEEPS;
}

describe("a sequential design's power at few pairs", () => {
  const designs = [
    { spending: 'obrien_fleming' as const, looks: 2, pairs: 8 },
    { spending: 'obrien_fleming' as const, looks: 2, pairs: 16 },
    { spending: 'pocock' as const, looks: 2, pairs: 12 },
    { spending: 'obrien_fleming' as const, looks: 3, pairs: 30 },
  ];

  it.each(designs)('is within 1.5 points of the Monte Carlo power (+ 3 SE), closer than the normal theory ($spending, $looks looks, $pairs pairs)', ({ spending, looks, pairs }) => {
    const truth = monteCarloPower(spending, looks, pairs, 1000 + pairs);
    const se = Math.sqrt((truth * (1 - truth)) / SWEEPS);
    const claimed = sequentialPower({ spending, alpha: 0.05, power: 0.8, looks, pairs, sd: SD, difference: DELTA });
    const drift = (DELTA / SD) * Math.sqrt(pairs);
    const normal = sequentialOperatingCharacteristics({ spending, alpha: 0.05, beta: 0.2, fractions: equalFractions(looks), drift, designDrift: drift }).power;
    console.log(`${spending}, ${looks} looks, ${pairs} pairs: Monte Carlo ${(truth * 100).toFixed(1)}% ± ${(se * 100).toFixed(1)}, t-corrected claim ${(claimed * 100).toFixed(1)}%, normal theory ${(normal * 100).toFixed(1)}%`);
    expect(Math.abs(claimed - truth)).toBeLessThan(0.015 + 3 * se);
    expect(normal - truth).toBeGreaterThan(Math.abs(claimed - truth));
  });

  it("is the exact t test's power at one look", () => {
    for (const pairs of [4, 8, 20]) expect(sequentialPower({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 1, pairs, sd: SD, difference: DELTA })).toBeCloseTo(pairedTestPower({ pairs, sd: SD, difference: DELTA, alpha: 0.05 }), 6);
  });

  it('shows the normal theory failing at 8 pairs in two looks (so the test above can fail)', () => {
    const truth = monteCarloPower('obrien_fleming', 2, 8, 1008);
    const drift = (DELTA / SD) * Math.sqrt(8);
    const normal = sequentialOperatingCharacteristics({ spending: 'obrien_fleming', alpha: 0.05, beta: 0.2, fractions: [0.5, 1], drift, designDrift: drift }).power;
    expect(normal - truth).toBeGreaterThan(0.015 + 3 * Math.sqrt((truth * (1 - truth)) / SWEEPS));
  });
});
