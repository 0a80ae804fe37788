import { describe, expect, it } from 'vitest';
import {
  crossingProbability,
  efficacyBoundaries,
  equalFractions,
  fixedDesignPairs,
  futilityBoundaries,
  inflationFactor,
  normalCdf,
  normalQuantile,
  sequentialDrift,
  repeatedInterval,
  sequentialDesignPairs,
  sequentialOperatingCharacteristics,
  spentAlpha,
  tBoundary,
  tQuantile,
} from '../../../harness/index.js';

const round3 = (xs: number[]) => xs.map((x) => Number(x.toFixed(3)));

describe('efficacy boundaries (Lan–DeMets, one-sided function at alpha/2 per side, as gsDesign and rpact)', () => {
  it("reproduce O'Brien–Fleming spending at two, three and five equal looks, alpha 0.05", () => {
    expect(round3(efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.5, 1] }).z)).toEqual([2.963, 1.969]);
    expect(round3(efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: equalFractions(3) }).z)).toEqual([3.71, 2.511, 1.993]);
    // gsDesign(k = 5, test.type = 2, alpha = 0.025, sfu = sfLDOF)$upper$bound
    expect(round3(efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: equalFractions(5) }).z)).toEqual([4.877, 3.357, 2.68, 2.29, 2.031]);
  });

  it('reproduce Pocock-type spending at two looks (the same under either convention: it is linear in alpha)', () => {
    expect(round3(efficacyBoundaries({ spending: 'pocock', alpha: 0.05, fractions: [0.5, 1] }).z)).toEqual([2.157, 2.201]);
    expect(spentAlpha('pocock', 0.05, 0.5)).toBeCloseTo(2 * spentAlpha('pocock', 0.025, 0.5), 15);
  });

  it('differ from the other convention, which applies the function to the two-sided total (first look 2.772)', () => {
    expect(normalQuantile(1 - spentAlpha('obrien_fleming', 0.05, 0.5) / 2)).toBeCloseTo(2.772, 3);
    expect(normalQuantile(1 - spentAlpha('obrien_fleming', 0.025, 0.5))).toBeCloseTo(2.963, 3);
  });

  it('spend exactly alpha in total (cross-checked against a multivariate normal in scipy 1.17: 0.0500000)', () => {
    for (const fractions of [[0.5, 1], equalFractions(3), [0.2, 0.45, 1]]) {
      for (const spending of ['obrien_fleming', 'pocock'] as const) {
        const { z, cumulativeAlpha } = efficacyBoundaries({ spending, alpha: 0.05, fractions });
        expect(cumulativeAlpha.at(-1)).toBe(0.05);
        expect(crossingProbability({ z, fractions })).toBeCloseTo(0.05, 6);
      }
    }
  });

  it('spend only what the function allows when the last look falls short of the plan, and all of it when flagged final', () => {
    const short = efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.4, 0.8] });
    expect(short.cumulativeAlpha[1]).toBeCloseTo(2 * spentAlpha('obrien_fleming', 0.025, 0.8), 12);
    const final = efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.4, 0.8], finalLook: true });
    expect(crossingProbability({ z: final.z, fractions: [0.4, 0.8] })).toBeCloseTo(0.05, 6);
    expect(final.z[1]).toBeLessThan(short.z[1]!);
  });

  it('report each boundary as its nominal two-sided p-value', () => {
    const { z, nominalP } = efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.5, 1] });
    z.forEach((c, k) => expect(nominalP[k]).toBeCloseTo(2 * (1 - normalCdf(c)), 10));
  });
});

describe('the repeated confidence interval at a look', () => {
  it('is the estimate ± the t-scale boundary × SE, and excludes 0 exactly when |t| crosses the boundary', () => {
    const z = efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions: [0.5, 1] }).z[0]!;
    const ci = repeatedInterval({ estimate: 0.1, standardError: 0.03, df: 24, z });
    expect(ci.halfWidth).toBeCloseTo(tBoundary(z, 24) * 0.03, 12);
    expect(ci.low > 0).toBe(0.1 / 0.03 >= tBoundary(z, 24));
    expect(repeatedInterval({ estimate: 0.1, standardError: 0.025, df: 24, z }).low).toBeGreaterThan(0);
  });
});

describe('repeated looks without adjustment', () => {
  it('reject a true null 8.3% of the time at two looks and 14.2% at five (scipy: 0.08312, 0.14169)', () => {
    const z196 = (k: number) => Array<number>(k).fill(normalQuantile(0.975));
    expect(crossingProbability({ z: z196(2), fractions: equalFractions(2) })).toBeCloseTo(0.08312, 4);
    expect(crossingProbability({ z: z196(5), fractions: equalFractions(5) })).toBeCloseTo(0.14169, 4);
  });
});

describe('the t correction', () => {
  it('matches the nominal p-value on the t scale, and is the z boundary at large df', () => {
    expect(tBoundary(normalQuantile(0.975), 10)).toBeCloseTo(tQuantile(0.975, 10), 8);
    expect(tBoundary(2.963, 24)).toBeCloseTo(tQuantile(1 - (1 - normalCdf(2.963)), 24), 6);
    expect(tBoundary(2.963, 1e6)).toBeCloseTo(2.963, 4);
    expect(tBoundary(6.99, 20)).toBeGreaterThan(6.99);
  });
});

describe('power, inflation and expected information', () => {
  it('give the inflation factors a multivariate normal gives (scipy 1.17: 1.003724, 1.012794, Pocock 1.122524)', () => {
    expect(inflationFactor({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 2 })).toBeCloseTo(1.003724, 5);
    expect(inflationFactor({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 3 })).toBeCloseTo(1.012794, 5);
    expect(inflationFactor({ spending: 'pocock', alpha: 0.05, power: 0.8, looks: 2 })).toBeCloseTo(1.122524, 5);
    expect(sequentialDrift({ spending: 'pocock', alpha: 0.05, power: 0.8, looks: 1 })).toBeCloseTo(normalQuantile(0.975) + normalQuantile(0.8), 5);
  });

  it('reach the power at the solved drift, and alpha at drift 0', () => {
    const fractions = equalFractions(3);
    const drift = sequentialDrift({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 3 });
    const alt = sequentialOperatingCharacteristics({ spending: 'obrien_fleming', alpha: 0.05, fractions, drift });
    expect(alt.power).toBeCloseTo(0.8, 6);
    expect(alt.stopProbabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12);
    expect(alt.expectedFraction).toBeLessThan(1);
    const nul = sequentialOperatingCharacteristics({ spending: 'obrien_fleming', alpha: 0.05, fractions, drift: 0 });
    expect(nul.power).toBeCloseTo(0.05, 6);
    expect(nul.upperCrossing).toBeCloseTo(0.025, 6);
  });

  it('with non-binding futility: the last futility boundary meets the efficacy one at the design drift, the first spends beta in closed form', () => {
    const fractions = equalFractions(3);
    const drift = sequentialDrift({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 3, futility: true });
    const { z: b } = futilityBoundaries({ spending: 'obrien_fleming', alpha: 0.05, beta: 0.2, fractions, drift });
    const { z: c } = efficacyBoundaries({ spending: 'obrien_fleming', alpha: 0.05, fractions });
    expect(b.at(-1)).toBe(c.at(-1));
    expect(normalCdf(b[0]! - drift * Math.sqrt(1 / 3))).toBeCloseTo(spentAlpha('obrien_fleming', 0.2, 1 / 3), 8);
    const alt = sequentialOperatingCharacteristics({ spending: 'obrien_fleming', alpha: 0.05, fractions, drift, futility: true });
    expect(alt.power).toBeCloseTo(0.8, 6);
    const nul = sequentialOperatingCharacteristics({ spending: 'obrien_fleming', alpha: 0.05, fractions, drift: 0, futility: true });
    // Stopping for futility saves information under the null; the rejection rate falls below alpha (non-binding).
    expect(nul.expectedFraction).toBeLessThan(0.6);
    expect(nul.power).toBeLessThan(0.05);
    expect(inflationFactor({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 3, futility: true })).toBeGreaterThan(
      inflationFactor({ spending: 'obrien_fleming', alpha: 0.05, power: 0.8, looks: 3 }),
    );
  });
});

describe('the fixed paired design', () => {
  it('needs 50 pairs by the normal formula and 52 by the t test for 0.1 at SD 0.25, alpha 0.05, power 0.8', () => {
    expect(fixedDesignPairs({ difference: 0.1, sd: 0.25 })).toEqual({ normal: 50, t: 52 });
  });
});

describe('bad arguments', () => {
  it('are refused with the field named', () => {
    const bad = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as Error).message;
      }
      return 'no error';
    };
    expect(bad(() => efficacyBoundaries({ spending: 'linear' as never, alpha: 0.05, fractions: [1] }))).toMatchInlineSnapshot(`"unknown spending function "linear": use obrien_fleming or pocock"`);
    expect(bad(() => efficacyBoundaries({ spending: 'pocock', alpha: 0.05, fractions: [0.5, 0.5] }))).toMatchInlineSnapshot(`"look 2: information fractions must increase strictly, got 0.5 then 0.5"`);
    expect(bad(() => efficacyBoundaries({ spending: 'pocock', alpha: 0.05, fractions: [0.5, 1.2] }))).toMatchInlineSnapshot(`"look 2: the information fraction must lie in (0, 1], got 1.2"`);
    expect(bad(() => equalFractions(0))).toMatchInlineSnapshot(`"looks must be an integer >= 1, got 0"`);
    expect(bad(() => fixedDesignPairs({ difference: 0, sd: 0.25 }))).toMatchInlineSnapshot(`"the difference must be a positive number, got 0"`);
  });
});

describe('a sequential paired design', () => {
  it('inflates the fixed t design (52 pairs) and uses fewer pairs on average, more so with futility under the null', () => {
    const base = { alpha: 0.05, power: 0.8, difference: 0.1, sd: 0.25 };
    const of3 = sequentialDesignPairs({ ...base, spending: 'obrien_fleming', looks: 3 });
    expect({ max: of3.maxPairs, looks: of3.pairsPerLook, fixed: of3.fixed }).toEqual({ max: 53, looks: [18, 36, 53], fixed: { normal: 50, t: 52 } });
    expect(of3.expectedPairsAlternative).toBeLessThan(52);
    expect(of3.expectedPairsNull).toBeGreaterThan(52);
    const withFutility = sequentialDesignPairs({ ...base, spending: 'obrien_fleming', looks: 3, futility: true });
    expect(withFutility.expectedPairsNull).toBeLessThan(0.7 * withFutility.maxPairs);
    expect(sequentialDesignPairs({ ...base, spending: 'pocock', looks: 2 }).maxPairs).toBe(Math.ceil(52 * 1.122524));
  });
});
