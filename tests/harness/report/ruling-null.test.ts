import { beforeAll, describe, expect, it } from 'vitest';
import { Hypothesis, hypothesisPin, type CellTally } from '../../../harness/index.js';
import { rulingSection } from '../../../harness/testing.js';
import { DEFAULT_POPULATION as PLANTED, drawSweep, type Design } from '../stats/calibration-support.js';

/**
 * The ruling's error rate, shown rather than assumed: synthetic shared-pairing sweeps of caps 1
 * and 2, 10 pairs per cap, drawn from the SIMULATED population's pure sampler (no Docker), ruled
 * on as `harness report` rules. Under a planted null (equal recalls: the closed form gives the
 * arms equal survival at every level) SUPPORTED must come in at most alpha of sweeps, for the
 * primary and for the Holm-adjusted secondaries together; under the planted effect it must come
 * often, or the first figure would say nothing.
 */

const SWEEPS = 400;

const EFFECT: Design = { params: PLANTED, caps: [1, 2], mergeAttempts: 2, pairs: 10 };
const NULL: Design = { ...EFFECT, params: { ...PLANTED, self_review_recall: PLANTED.judge_recall } };

/** δ small, so SUPPORTED is decided by the lower bound alone: the hardest case for the null. */
const HYPOTHESIS = Hypothesis.parse({ primary: { level: 2 }, secondary: [{ level: 1 }, { levels_from: 1 }], smallest_difference: 0.01, alpha: 0.05, power: 0.8 });

interface Rates {
  primary: number;
  anySecondary: number;
  /** Any comparison at all, primary included. */
  any: number;
}

function rates(sweeps: readonly CellTally[][], h: Hypothesis): Rates {
  let primary = 0;
  let anySecondary = 0;
  let any = 0;
  for (const cells of sweeps) {
    const ruled = rulingSection({ cells, pairing: 'shared', hypothesis: h, pinned: hypothesisPin(h) })!.comparisons;
    const supported = ruled.map((c) => c.ruling === 'SUPPORTED');
    primary += Number(supported[0]);
    anySecondary += Number(supported.slice(1).some(Boolean));
    any += Number(supported.some(Boolean));
  }
  return { primary: primary / sweeps.length, anySecondary: anySecondary / sweeps.length, any: any / sweeps.length };
}

describe(`the ruling by simulation (${SWEEPS} synthetic sweeps, caps 1-2, 10 pairs per cap)`, () => {
  let nil: CellTally[][];
  let effect: CellTally[][];
  beforeAll(() => {
    nil = Array.from({ length: SWEEPS }, (_, i) => drawSweep(NULL, i + 1));
    effect = Array.from({ length: SWEEPS / 4 }, (_, i) => drawSweep(EFFECT, i + 1));
  });

  it('under the planted null, SUPPORTED in at most alpha of sweeps: the primary, and the secondaries together', () => {
    for (const alpha of [0.05, 0.2]) {
      const r = rates(nil, { ...HYPOTHESIS, alpha });
      console.log(`planted null, alpha ${alpha}: SUPPORTED primary ${(100 * r.primary).toFixed(1)}%, any secondary ${(100 * r.anySecondary).toFixed(1)}%, any comparison ${(100 * r.any).toFixed(1)}%`);
      expect({ alpha, primary: r.primary <= alpha, anySecondary: r.anySecondary <= alpha }).toEqual({ alpha, primary: true, anySecondary: true });
    }
  });

  it('under the planted effect the same rule says SUPPORTED in most sweeps (so the null figure is not vacuous)', () => {
    const r = rates(effect, HYPOTHESIS);
    console.log(`planted effect, alpha 0.05: SUPPORTED primary ${(100 * r.primary).toFixed(1)}%, any secondary ${(100 * r.anySecondary).toFixed(1)}%`);
    expect(r.primary).toBeGreaterThan(0.5);
    expect(r.anySecondary).toBeGreaterThan(0.5);
  });
});
