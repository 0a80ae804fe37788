import { describe, expect, it } from 'vitest';
import { noncentralTCdf, normalCdf, normalQuantile, tQuantile } from '../../../harness/index.js';

// Reference values: scipy 1.17 (stats.t.ppf, stats.nct.cdf), which agree with R's qt/pt to the digits shown.
const T_QUANTILES: Array<[p: number, df: number, value: number]> = [
  [0.975, 1, 12.706204736174694],
  [0.975, 2, 4.302652729749462],
  [0.975, 3, 3.1824463052837078],
  [0.975, 4, 2.7764451051977934],
  [0.975, 9, 2.262157162798205],
  [0.975, 38, 2.0243941639119694],
  [0.995, 1, 63.656741162871526],
  [0.995, 4, 4.604094871349992],
  [0.995, 9, 3.249835541592126],
  [0.975, 2.5, 3.5746548420036817],
  [0.025, 3, -3.1824463052837086],
  [0.9, 13.235294117647058, 1.3488882116752698],
];

const NONCENTRAL: Array<[t: number, df: number, ncp: number, cdf: number]> = [
  [12.706204736174694, 1, 20, 0.11660555706696488],
  // Noncentrality 35 on 1 df: a Poisson-weighted beta series cut off at a fixed number of terms
  // (jstat's) returns ~1e-85 here, because its terms peak near j = 612.
  [12.706204736174694, 1, 35, 0.006031419642209591],
  [3.182446305283708, 3, 4.5, 0.162406626768043],
  [-1, 3, 4.5, 1.3732357930683305e-7],
  [2.024394164, 38, 3.1622776601683795, 0.13104719832651668],
  [0.5, 5, -1, 0.9276977565230959],
  [1.5, 2.5, 0.7, 0.7084316747164003],
  [0, 7, 1, 0.15865525393145707],
  [4, 2, 2, 0.7552910220032045],
];

describe('t quantiles', () => {
  it.each(T_QUANTILES)('t(%d; df %d) matches the reference to 1e-8 relative', (p, df, value) => {
    expect(Math.abs(tQuantile(p, df) - value) / Math.abs(value)).toBeLessThan(1e-8);
  });

  it('refuses probabilities outside (0, 1) and df <= 0 rather than return NaN or infinity', () => {
    expect(() => tQuantile(1, 3)).toThrowErrorMatchingInlineSnapshot(`[RangeError: p must lie strictly between 0 and 1, got 1]`);
    expect(() => tQuantile(0.5, 0)).toThrow(RangeError);
    expect(() => normalQuantile(0)).toThrow(RangeError);
  });

  it('normal quantile and CDF agree with the textbook constants', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 12);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 12);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 14);
  });
});

describe('noncentral t CDF (quadrature over the chi variable)', () => {
  it.each(NONCENTRAL)('P(T <= %d; df %d, ncp %d) matches the reference to 1e-12 absolute', (t, df, ncp, cdf) => {
    expect(Math.abs(noncentralTCdf(t, df, ncp) - cdf)).toBeLessThan(1e-12);
  });

  it('with noncentrality 0 it is the central t: P(T <= t_0.975) = 0.975', () => {
    for (const df of [1, 2, 3, 9, 40]) expect(noncentralTCdf(tQuantile(0.975, df), df, 0)).toBeCloseTo(0.975, 8);
  });

  it('refuses df below 1 and non-finite arguments', () => {
    expect(() => noncentralTCdf(1, 0.5, 1)).toThrow(RangeError);
    expect(() => noncentralTCdf(Number.POSITIVE_INFINITY, 3, 1)).toThrow(RangeError);
  });
});
