import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest, hypothesisLines, minimumDetectableDifference, pairedTestPower, planHypothesis, runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from '../manifest/manifest-fixtures.js';

/** `harness plan` judges the hypothesis: whether the design can detect δ at the power wanted, from the exact noncentral t. */

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

const HYPOTHESIS = { primary: { level: 2 }, secondary: [{ level: 1 }, { levels_from: 1 }], smallest_difference: 0.1, alpha: 0.05, power: 0.8 };
const manifest = (over: Record<string, unknown> = {}) => Manifest.parse(patched({ ...VALID_MANIFEST, hypothesis: HYPOTHESIS }, over));

describe('planHypothesis', () => {
  it('says plainly when the design cannot detect δ, and how many pairs would', () => {
    // caps 1-3, repetitions 1, 1, 2: level 2 pools caps 2 and 3, 3 pairs.
    const plan = planHypothesis(manifest(), 0.25)!;
    expect(plan.detectable).toBe(false);
    expect(hypothesisLines(plan)).toMatchInlineSnapshot(`
      [
        "Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%",
        "(paired two-sided t, exact noncentral t, SD of pair differences 0.250; pairs counted at every cap deep enough, an upper bound):",
        "  level 2 (primary): CANNOT detect δ = 0.1 at 80% power: 3 pairs at caps 2, 3 give 7.2% at alpha 0.05 (the smallest it detects is 0.816); about 52 pairs would be needed.",
        "  level 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 4 pairs at caps 1, 2, 3 give 4.7% at alpha 0.025 (the smallest it detects is 0.679); about 62 pairs would be needed.",
        "  levels >= 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 4 pairs at caps 1, 2, 3 give 4.7% at alpha 0.025 (the smallest it detects is 0.679); about 62 pairs would be needed.",
        "  The design CANNOT detect δ on the primary comparison at the power wanted: add repetitions at the deep caps, or expect INCONCLUSIVE.",
      ]
    `);
  });

  it('says it can when the repetitions are there, sized with the noncentral t of harness/stats', () => {
    const plan = planHypothesis(manifest({ repetitions: { default: 20, by_cap: { 3: 20 } } }), 0.1)!;
    expect(plan.detectable).toBe(true);
    const primary = plan.comparisons[0]!;
    // Level 2 pools caps 2 and 3: 40 pairs, at alpha; a secondary at alpha / 2 (Holm's strictest step).
    expect(primary.pairs).toBe(40);
    expect(primary.power).toBeCloseTo(pairedTestPower({ pairs: 40, sd: 0.1, difference: 0.1, alpha: 0.05 }), 12);
    const mde = minimumDetectableDifference({ pairs: 40, sd: 0.1, alpha: 0.05, power: 0.8 });
    expect(mde.kind === 'noncentral-t' && primary.minimumDetectable).toBeCloseTo(mde.kind === 'noncentral-t' ? mde.difference : NaN, 12);
    expect(plan.comparisons[1]!).toMatchObject({ role: 'secondary', alpha: 0.025, pairs: 60 });
    // The pairs needed is the fewest that reach the power wanted.
    const needed = planHypothesis(manifest(), 0.25)!.comparisons[0]!.pairsNeeded!;
    expect(pairedTestPower({ pairs: needed, sd: 0.25, difference: 0.1, alpha: 0.05 })).toBeGreaterThanOrEqual(0.8);
    expect(pairedTestPower({ pairs: needed - 1, sd: 0.25, difference: 0.1, alpha: 0.05 })).toBeLessThan(0.8);
    expect(hypothesisLines(plan)).toMatchInlineSnapshot(`
      [
        "Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%",
        "(paired two-sided t, exact noncentral t, SD of pair differences 0.100; pairs counted at every cap deep enough, an upper bound):",
        "  level 2 (primary): can detect δ = 0.1: 40 pairs at caps 2, 3 give over 99.9% power at alpha 0.05 (80% wanted; the smallest it detects is 0.045).",
        "  level 1 (secondary, at alpha / m, Holm's strictest): can detect δ = 0.1: 60 pairs at caps 1, 2, 3 give over 99.9% power at alpha 0.025 (80% wanted; the smallest it detects is 0.041).",
        "  levels >= 1 (secondary, at alpha / m, Holm's strictest): can detect δ = 0.1: 60 pairs at caps 1, 2, 3 give over 99.9% power at alpha 0.025 (80% wanted; the smallest it detects is 0.041).",
        "  The design can detect δ on the primary comparison at the power wanted.",
      ]
    `);
  });

  it('is absent without a hypothesis', () => {
    expect(planHypothesis(Manifest.parse(VALID_MANIFEST), 0.25)).toBeUndefined();
  });
});

describe('harness plan with a hypothesis', () => {
  it('prints the verdict after the power figures, and puts it in --json', async () => {
    const file = await tmp.write('h.yaml', yamlOf({ ...VALID_MANIFEST, hypothesis: HYPOTHESIS }));
    const io = bufferIo();
    expect(await runCli(['plan', file], io)).toBe(0);
    const text = io.stdout();
    expect(text.slice(text.indexOf('Pre-registered hypothesis'))).toMatchInlineSnapshot(`
      "Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%
      (paired two-sided t, exact noncentral t, SD of pair differences 0.250; pairs counted at every cap deep enough, an upper bound):
        level 2 (primary): CANNOT detect δ = 0.1 at 80% power: 3 pairs at caps 2, 3 give 7.2% at alpha 0.05 (the smallest it detects is 0.816); about 52 pairs would be needed.
        level 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 4 pairs at caps 1, 2, 3 give 4.7% at alpha 0.025 (the smallest it detects is 0.679); about 62 pairs would be needed.
        levels >= 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 4 pairs at caps 1, 2, 3 give 4.7% at alpha 0.025 (the smallest it detects is 0.679); about 62 pairs would be needed.
        The design CANNOT detect δ on the primary comparison at the power wanted: add repetitions at the deep caps, or expect INCONCLUSIVE.

      Design search: the cheapest design whose primary comparison (level 2, caps 2, 3) detects δ = 0.1 at alpha 0.05 with 80% power, SD of pair differences 0.250:
        a fixed design needs 52 pairs (exact noncentral t); widths searched: 3 (projected_branching: a
        scenario).

        design             width  pairs per cap (cap:pairs)  primary pairs  sessions  token bound  cost bound  wall time  power  fits
        manifest's         b = 3  1:1 2:1 3:2                            3     1,427        1.43B      $7,135    unknown   7.2%    NO
        largest that fits  b = 3  1:1 2:1 3:1                            2       834         834M      $4,170    unknown   5.8%   yes

        NO design within max_sessions and max_cost_usd reaches 80% power for δ = 0.1. The largest that
        fits detects no difference up to 1 at that power; raise the ceilings, ask a larger
        smallest_difference, or expect INCONCLUSIVE. Its lines:
          repetitions:
            default: 1
        Assumes each pair of the primary comparison spreads by the plan's SD whatever its cap or
        width, so the extra pairs go to the cheapest cap deep enough and every other cap keeps at most
        2 for the curve.
        Assumes the width is projected_branching (a scenario, not a bound): declare max_children to
        let plan search narrower trees.
      "
    `);
    const json = bufferIo();
    expect(await runCli(['plan', file, '--json'], json)).toBe(0);
    const plan = JSON.parse(json.stdout()) as { hypothesis: { detectable: boolean; comparisons: Array<{ comparison: string; pairs: number }> } };
    expect(plan.hypothesis.detectable).toBe(false);
    expect(plan.hypothesis.comparisons.map((c) => `${c.comparison}: ${c.pairs}`)).toEqual(['level 2: 3', 'level 1: 4', 'levels >= 1: 4']);
  });
});
