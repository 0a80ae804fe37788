import { describe, expect, it } from 'vitest';
import {
  Hypothesis,
  buildReport,
  hypothesisPin,
  renderMarkdown,
  survivalStats,
  type CellTally,
  type Interval,
  type JournalPins,
} from '../../../harness/index.js';
import {
  comparisonDifference,
  comparisonTallies,
  holmLevels,
  isolatedDefects,
  rule,
  rulingLines,
  rulingSection,
  comparisonPValue,
} from '../../../harness/testing.js';
import { simCells, simJournal, simManifest, simPins, type SimDesign } from './sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/** The pre-registered ruling: the rule, Holm's step-down, the pooled-over-levels comparison, the pin, and three sweeps built so each ruling is the right one. */

const defects = isolatedDefects(SPEC_IDS);

const hypothesis = (over: Record<string, unknown> = {}) => Hypothesis.parse({ primary: { level: 2 }, smallest_difference: 0.1, alpha: 0.05, power: 0.8, ...over });

/** A simulated sweep recorded under `h`, its journal pinning `pinned` (default: `h` itself). */
function report(design: SimDesign, h: Hypothesis, pinned: Hypothesis | null | 'same' = 'same') {
  const pins: JournalPins = { ...simPins(design), ...(pinned === null ? {} : { hypothesis: hypothesisPin(pinned === 'same' ? h : pinned) as never }) };
  return buildReport({ runName: 'run', events: simJournal(design, simCells(design), { pins }), manifest: simManifest(design, { hypothesis: h }), defects, requirements: SPEC_IDS });
}

const section = (md: string) => {
  const start = md.indexOf('## Pre-registered ruling');
  return start < 0 ? '' : md.slice(start, md.indexOf('\n## ', start + 1));
};

const tInterval = (low: number, high: number): Interval => ({ kind: 't', confidence: 0.95, low, high, standardError: 0.01, assumedSpread: null, scale: 'logit', df: 9, tQuantile: 2.26, calibrated: true, label: null });

describe('rule: from the interval alone', () => {
  it('NOT SUPPORTED below δ, SUPPORTED above 0 and reaching δ, INCONCLUSIVE otherwise', () => {
    const δ = 0.1;
    expect(rule(tInterval(-0.05, 0.09), δ)).toBe('NOT SUPPORTED');
    // An effect that is real but smaller than matters is not supported.
    expect(rule(tInterval(0.01, 0.09), δ)).toBe('NOT SUPPORTED');
    expect(rule(tInterval(0.01, 0.3), δ)).toBe('SUPPORTED');
    // "Reaches" includes the bound itself; "above 0" does not.
    expect(rule(tInterval(0.01, 0.1), δ)).toBe('SUPPORTED');
    expect(rule(tInterval(0, 0.3), δ)).toBe('INCONCLUSIVE');
    expect(rule(tInterval(-0.05, 0.3), δ)).toBe('INCONCLUSIVE');
    expect(rule({ kind: 'none', reason: '1 pair' }, δ)).toBe('INCONCLUSIVE');
    expect(rule(null, δ)).toBe('INCONCLUSIVE');
  });
});

describe('Holm step-down', () => {
  it('reads the best-ranked at α/m, the next at α/(m − 1) only while every better one was rejected', () => {
    // Both rejected: the second gets α/1, which Bonferroni (α/2 for both) would not give it.
    expect(holmLevels([0.04, 0.001], 0.05)).toEqual([0.05, 0.025]);
    // The best fails at α/2: the procedure stops, and the rest keep α/2 (0.04 would pass at α).
    expect(holmLevels([0.04, 0.03], 0.05)).toEqual([0.025, 0.025]);
    expect(holmLevels([0.03, 0.5, 0.01], 0.05)).toEqual([0.025, 0.025, 0.05 / 3]);
    expect(holmLevels([], 0.05)).toEqual([]);
  });

  it("a comparison's p-value is where its interval touches 0: read at 1 − p, the lower bound is 0", () => {
    const cells = pairsOf([0.1, 0.05, 0.15, 0, 0.1, 0.05, 0.2], 2);
    const at95 = comparisonDifference(cells, 'shared', { level: 2 }, 0.95)!;
    const p = comparisonPValue(cells, 'shared', { level: 2 })!;
    expect(p).toBeGreaterThan(0.001);
    expect(p).toBeLessThan(0.05);
    const atP = comparisonDifference(cells, 'shared', { level: 2 }, 1 - p)!;
    expect(atP.interval.kind === 't' && atP.interval.low).toBeCloseTo(0, 6);
  });

  it('the ruling reads each secondary at its Holm level: a secondary SUPPORTED at α alone is INCONCLUSIVE at α/2', () => {
    // Level 1: a clear effect (p tiny). Level 2: p between α/2 and α. Primary: levels >= 1.
    const cells = [...pairsOf([0.2, 0.25, 0.3, 0.2, 0.25, 0.3], 1), ...pairsOf([0.15, 0, 0.25, 0.05, 0.2, 0.35], 2)];
    const pOf = (level: number) => {
      return comparisonPValue(cells, 'shared', { level })!;
    };
    expect(pOf(2)).toBeGreaterThan(0.025);
    expect(pOf(2)).toBeLessThan(0.05);
    const ruled = (secondary: object[]) =>
      rulingSection({ cells, pairing: 'shared', hypothesis: hypothesis({ primary: { levels_from: 1 }, secondary }), pinned: hypothesisPin(hypothesis({ primary: { levels_from: 1 }, secondary })) })!.comparisons.map(
        (c) => `${c.comparison} ${c.role} alpha ${Number(c.alpha.toFixed(4))}: ${c.ruling}`,
      );
    // Alone, level 2 is read at α and is SUPPORTED.
    expect(ruled([{ level: 2 }])).toEqual(['levels >= 1 primary alpha 0.05: SUPPORTED', 'level 2 secondary alpha 0.05: SUPPORTED']);
    // Beside a third comparison whose p is larger still, Holm stops at level 2: both read at α/2.
    const withWeak = [...cells.filter((c) => c.levels[0]!.level !== 3), ...pairsOf([0.3, -0.2, 0.1, -0.1, 0.2, 0], 3)];
    const three = rulingSection({ cells: withWeak, pairing: 'shared', hypothesis: hypothesis({ primary: { level: 1 }, secondary: [{ level: 2 }, { level: 3 }] }), pinned: hypothesisPin(hypothesis({ primary: { level: 1 }, secondary: [{ level: 2 }, { level: 3 }] })) })!;
    expect(three.comparisons.map((c) => `${c.comparison} alpha ${Number(c.alpha.toFixed(4))}: ${c.ruling}`)).toEqual(['level 1 alpha 0.05: SUPPORTED', 'level 2 alpha 0.025: INCONCLUSIVE', 'level 3 alpha 0.025: INCONCLUSIVE']);
  });
});

/** Pairs at one cap (= level), 20 claims per arm, each pair's difference as given (gated − ungated survival). */
function pairsOf(differences: number[], level: number, cap = Math.max(level, 1)): CellTally[] {
  return differences.flatMap((d, i) => {
    const ungated = 12;
    const gated = ungated + Math.round(d * 20);
    return [
      { cap, repetition: i + 1, arm: 'gated' as const, levels: [{ level, claimed: 20, surviving: gated }] },
      { cap, repetition: i + 1, arm: 'ungated' as const, levels: [{ level, claimed: 20, surviving: ungated }] },
    ];
  });
}

describe('the pooled-over-levels comparison (levels >= K): pairs are the clusters', () => {
  const cells: CellTally[] = [1, 2, 3, 4].flatMap((rep) => [
    { cap: 2, repetition: rep, arm: 'gated' as const, levels: [{ level: 0, claimed: 5, surviving: 5 }, { level: 1, claimed: 4, surviving: 4 }, { level: 2, claimed: 10, surviving: 8 + (rep % 2) }] },
    { cap: 2, repetition: rep, arm: 'ungated' as const, levels: [{ level: 0, claimed: 5, surviving: 5 }, { level: 1, claimed: 4, surviving: 3 }, { level: 2, claimed: 10, surviving: 6 }] },
  ]);

  it("sums each pair's claims over the levels, then estimates as every other difference does", () => {
    const pooled = comparisonDifference(cells, 'shared', { levels_from: 1 }, 0.95)!;
    // Σ over pairs and levels >= 1: gated 4·4 + (8+9+8+9) = 50, ungated 4·3 + 4·6 = 36, claims 4·14 = 56.
    expect(pooled.estimate).toBeCloseTo((50 - 36) / 56, 12);
    expect(pooled.strata).toEqual([{ cap: 2, pairs: 4, weight: 1 }]);
    // The same figure and interval survivalStats gives one level holding the summed tallies.
    const summed = survivalStats({ pairing: 'shared', cells: comparisonTallies(cells, { levels_from: 1 }) });
    expect(summed.caps[0]!.levels.map((l) => l.level)).toEqual([1]);
    expect(pooled.interval).toEqual(summed.pooled[0]!.difference!.interval);
    expect(comparisonDifference(cells, 'shared', { levels_from: 2 }, 0.95)!.estimate).toBeCloseTo((34 - 24) / 40, 12);
  });

  it('never lets level 0 in, even when its arms differ and a caller asks for it', () => {
    const unequal = cells.map((c) => (c.arm === 'gated' ? { ...c, levels: c.levels.map((t) => (t.level === 0 ? { ...t, claimed: 50, surviving: 50 } : t)) } : { ...c, levels: c.levels.map((t) => (t.level === 0 ? { ...t, claimed: 50, surviving: 0 } : t)) }));
    const fromOne = comparisonDifference(unequal, 'independent', { levels_from: 1 }, 0.95)!.estimate;
    expect(fromOne).toBeCloseTo((50 - 36) / 56, 12);
    // The schema refuses levels_from: 0; the estimator drops level 0 again regardless.
    expect(comparisonDifference(unequal, 'independent', { levels_from: 0 }, 0.95)!.estimate).toBeCloseTo(fromOne, 12);
    expect(comparisonDifference(unequal, 'independent', { level: 0 }, 0.95)).toBeNull();
  });
});

describe('the three rulings, each on a sweep built so that it is the right one', () => {
  it('SUPPORTED: a planted effect (judge recall 0.95 against self-review 0.05) far above δ, 8 pairs per cap', () => {
    const design: SimDesign = { params: { seed: 3, seam_defect_rate: 0.8, judge_recall: 0.95, self_review_recall: 0.05, repair_rate: 0.95 }, caps: [1, 2], repetitions: 8, mergeAttempts: 2, defects };
    const r = report(design, hypothesis({ smallest_difference: 0.05, secondary: [{ level: 1 }, { levels_from: 1 }] }));
    const level2 = r.survival.pooled.find((row) => row.level === 2)!.difference!;
    // The planted difference at level 2 is well above δ: SUPPORTED is the right ruling.
    expect(level2.truth).toBeGreaterThan(0.25);
    expect(section(renderMarkdown(r))).toMatchInlineSnapshot(`
      "## Pre-registered ruling

      The manifest's hypothesis, pinned in the journal's header before any cell was recorded: gated − ungated survival, smallest difference that matters δ = 0.050, alpha 0.05 (the 2 secondary comparisons at Holm-adjusted alpha). Each comparison is ruled on from its (1 − alpha) interval: NOT SUPPORTED when the upper bound is below δ; SUPPORTED when the lower bound is above 0 and the upper bound reaches δ; INCONCLUSIVE otherwise. The power asked for (80%) judged the plan; it does not enter a ruling. Level 0 is never compared: it has no merge.

      | comparison | role | alpha | p (no difference) | gated − ungated | ruling |
      | --- | --- | --- | --- | --- | --- |
      | level 2 | primary | 0.05 | 0.0003 | +0.292 [+0.211, +0.368] (95% interval, 6 pairs) | **SUPPORTED** |
      | level 1 | secondary | 0.05 | < 0.0001 | +0.175 [+0.147, +0.203] (95% interval, 8 pairs) | **SUPPORTED** |
      | levels >= 1 | secondary | 0.025 | < 0.0001 | +0.223 [+0.182, +0.263] (97.5% interval, 14 pairs) | **SUPPORTED** |
      "
    `);
    expect(rulingLines(r.ruling!)).toMatchInlineSnapshot(`
      [
        "Pre-registered ruling (δ 0.050, alpha 0.05, secondaries Holm-adjusted):",
        "  level 2 (primary): SUPPORTED, gated − ungated +0.292 [+0.211, +0.368] (95% interval, 6 pairs)",
        "  level 1 (secondary): SUPPORTED, gated − ungated +0.175 [+0.147, +0.203] (95% interval, 8 pairs)",
        "  levels >= 1 (secondary): SUPPORTED, gated − ungated +0.223 [+0.182, +0.263] (97.5% interval, 14 pairs)",
      ]
    `);
  });

  it('NOT SUPPORTED: a planted null (equal recalls), δ = 0.2, 8 pairs per cap', () => {
    const design: SimDesign = { params: { seed: 3, seam_defect_rate: 0.8, judge_recall: 0.5, self_review_recall: 0.5, repair_rate: 0.95 }, caps: [1, 2], repetitions: 8, mergeAttempts: 2, defects };
    const r = report(design, hypothesis({ smallest_difference: 0.2 }));
    expect(r.survival.pooled.find((row) => row.level === 2)!.difference!.truth).toBeCloseTo(0, 12);
    expect(section(renderMarkdown(r))).toMatchInlineSnapshot(`
      "## Pre-registered ruling

      The manifest's hypothesis, pinned in the journal's header before any cell was recorded: gated − ungated survival, smallest difference that matters δ = 0.200, alpha 0.05. Each comparison is ruled on from its (1 − alpha) interval: NOT SUPPORTED when the upper bound is below δ; SUPPORTED when the lower bound is above 0 and the upper bound reaches δ; INCONCLUSIVE otherwise. The power asked for (80%) judged the plan; it does not enter a ruling. Level 0 is never compared: it has no merge.

      | comparison | role | alpha | p (no difference) | gated − ungated | ruling |
      | --- | --- | --- | --- | --- | --- |
      | level 2 | primary | 0.05 | 0.1436 | -0.042 [-0.103, +0.020] (95% interval, 6 pairs) | **NOT SUPPORTED** |
      "
    `);
  });

  it('INCONCLUSIVE: a planted effect near δ, recorded with 3 pairs per cap, too few to tell it from 0 or from δ', () => {
    const design: SimDesign = { params: { seed: 4, seam_defect_rate: 0.8, judge_recall: 0.9, self_review_recall: 0.1, repair_rate: 0.9 }, caps: [1, 2], repetitions: 3, mergeAttempts: 2, defects };
    const r = report(design, hypothesis({ primary: { levels_from: 1 }, smallest_difference: 0.2 }));
    // The planted differences at levels 1 and 2 straddle δ: neither "no effect that matters" nor "an effect that matters" is shown by 3 pairs.
    const truths = [1, 2].map((level) => r.survival.pooled.find((row) => row.level === level)!.difference!.truth!);
    expect(Math.min(...truths)).toBeLessThan(0.2);
    expect(Math.max(...truths)).toBeGreaterThan(0.2);
    expect(section(renderMarkdown(r))).toMatchInlineSnapshot(`
      "## Pre-registered ruling

      The manifest's hypothesis, pinned in the journal's header before any cell was recorded: gated − ungated survival, smallest difference that matters δ = 0.200, alpha 0.05. Each comparison is ruled on from its (1 − alpha) interval: NOT SUPPORTED when the upper bound is below δ; SUPPORTED when the lower bound is above 0 and the upper bound reaches δ; INCONCLUSIVE otherwise. The power asked for (80%) judged the plan; it does not enter a ruling. Level 0 is never compared: it has no merge.

      | comparison | role | alpha | p (no difference) | gated − ungated | ruling |
      | --- | --- | --- | --- | --- | --- |
      | levels >= 1 | primary | 0.05 | 0.1597 | +0.115 [-0.111, +0.329] (95% interval, 3 pairs, uncalibrated (3 pairs)) | **INCONCLUSIVE** |
      "
    `);
  });

  it('power judges the plan, never the ruling: the same sweep asked at 51% or 99% power rules the same', () => {
    const design: SimDesign = { params: { seed: 4, seam_defect_rate: 0.8, judge_recall: 0.9, self_review_recall: 0.1, repair_rate: 0.9 }, caps: [1, 2], repetitions: 4, mergeAttempts: 2, defects };
    const rulings = (power: number) => report(design, hypothesis({ power, secondary: [{ level: 1 }] })).ruling!.comparisons;
    expect(rulings(0.51)).toEqual(rulings(0.99));
  });
});

describe('NOT PRE-REGISTERED', () => {
  const design: SimDesign = { params: { seed: 3 }, caps: [1, 2], repetitions: 3, mergeAttempts: 2, defects };

  it("when the run's manifest carries a hypothesis its journal's header does not pin: no ruling is given", () => {
    const r = report(design, hypothesis(), null);
    expect(r.ruling!.comparisons).toEqual([]);
    expect(section(renderMarkdown(r))).toMatchInlineSnapshot(`
      "## Pre-registered ruling

      **NOT PRE-REGISTERED: the manifest declares a hypothesis the journal's header does not pin, so it may have been written after cells were recorded; no ruling is given.**
      "
    `);
    expect(rulingLines(r.ruling!)).toMatchInlineSnapshot(`
      [
        "NOT PRE-REGISTERED: the manifest declares a hypothesis the journal's header does not pin, so it may have been written after cells were recorded; no ruling is given.",
      ]
    `);
  });

  it('when the pinned hypothesis differs from the manifest', () => {
    const r = report(design, hypothesis(), hypothesis({ smallest_difference: 0.05 }));
    expect(rulingLines(r.ruling!)).toMatchInlineSnapshot(`
      [
        "NOT PRE-REGISTERED: the manifest's hypothesis differs from the one the journal's header pins (smallest_difference 0.05 pinned, 0.1 in the manifest); no ruling is given.",
      ]
    `);
    const gone = buildReport({ runName: 'run', events: simJournal(design, simCells(design), { pins: { ...simPins(design), hypothesis: hypothesisPin(hypothesis()) as never } }), manifest: simManifest(design), defects, requirements: SPEC_IDS });
    expect(rulingLines(gone.ruling!)).toMatchInlineSnapshot(`
      [
        "NOT PRE-REGISTERED: the journal's header pins a hypothesis the manifest no longer declares; no ruling is given.",
      ]
    `);
  });

  it('a sweep with no hypothesis anywhere has no ruling section at all', () => {
    const r = buildReport({ runName: 'run', events: simJournal(design, simCells(design)), manifest: simManifest(design), defects, requirements: SPEC_IDS });
    expect(r.ruling).toBeUndefined();
    expect(renderMarkdown(r)).not.toContain('Pre-registered ruling');
  });
});
