import { sampleCovariance, sampleVariance, mean } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { clusterStandardError, pairedDifference, ratioEstimate } from '../../../harness/index.js';

const clusters = [
  { surviving: 9, claimed: 12 },
  { surviving: 3, claimed: 10 },
  { surviving: 14, claimed: 14 },
  { surviving: 2, claimed: 4 },
  { surviving: 7, claimed: 8 },
];

describe('ratio estimator over clusters', () => {
  it('is Σ surviving / Σ claimed: a claims-weighted mean, not the mean of the fractions', () => {
    const { estimate } = ratioEstimate(clusters);
    expect(estimate).toBeCloseTo(35 / 48, 15);
    expect(estimate).not.toBeCloseTo(mean(clusters.map((c) => c.surviving / c.claimed)), 3);
  });

  it("has Cochran's linearized variance (s_y² + R²s_x² − 2R·s_xy) / (n·x̄²)", () => {
    const y = clusters.map((c) => c.surviving);
    const x = clusters.map((c) => c.claimed);
    const r = 35 / 48;
    const cochran = Math.sqrt((sampleVariance(y) + r * r * sampleVariance(x) - 2 * r * sampleCovariance(x, y)) / (x.length * mean(x) ** 2));
    expect(clusterStandardError(ratioEstimate(clusters).influence)).toBeCloseTo(cochran, 14);
  });

  it('refuses what has no answer rather than return NaN', () => {
    expect(() => ratioEstimate([{ surviving: 0, claimed: 0 }])).toThrow(RangeError);
    expect(() => clusterStandardError([0.1])).toThrow(RangeError);
  });
});

describe('paired difference', () => {
  // Shared pairing: one tree per pair, so both arms have the same claims.
  const pairs = clusters.map((c, i) => ({ gated: c, ungated: { surviving: Math.max(0, c.surviving - [2, 1, 3, 0, 2][i]!), claimed: c.claimed } }));

  it('under shared claims is (Σ gated − Σ ungated) / Σ claimed, with the SE of the per-pair differences', () => {
    const { estimate, influence } = pairedDifference(pairs);
    expect(estimate).toBeCloseTo(8 / 48, 15);
    const d = pairs.map((p) => p.gated.surviving - p.ungated.surviving);
    const x = pairs.map((p) => p.gated.claimed);
    const direct = Math.sqrt(sampleVariance(d.map((di, i) => di - estimate * x[i]!)) / d.length) / mean(x);
    expect(clusterStandardError(influence)).toBeCloseTo(direct, 14);
  });

  it('lets the pairing cancel what the arms share: far narrower than two independent arms', () => {
    const paired = clusterStandardError(pairedDifference(pairs).influence);
    const unpaired = Math.hypot(clusterStandardError(ratioEstimate(pairs.map((p) => p.gated)).influence), clusterStandardError(ratioEstimate(pairs.map((p) => p.ungated)).influence));
    expect(paired).toBeLessThan(unpaired / 3);
  });
});
