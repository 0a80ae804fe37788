import { beforeAll, describe, expect, it } from 'vitest';
import { coverage, coverageTable, drawSweep, plantedTruth, type CoverageRow, type Design } from './calibration-support.js';

/**
 * Calibration of the survival intervals, shown rather than assumed (DESIGN.md section 4): 1,000
 * synthetic shared-pairing sweeps of caps 1 and 2 drawn from the SIMULATED population's pure
 * generative model, each interval checked against the closed-form planted truth. The tables
 * printed below are the figures for the closing note.
 */

const SWEEPS = 1000;

/** The sim's default population, pinned here so the figures cannot drift with a default. */
const PLANTED = {
  leaf_defect_rate: 0.2,
  seam_defect_rate: 0.15,
  judge_recall: 0.8,
  self_review_recall: 0.3,
  repair_rate: 0.6,
  branching: { 2: 0.5, 3: 0.5 },
  early_leaf_rate: 0.1,
  unresolved_claim_rate: 0.05,
  non_delivery_rate: 0.05,
};

const EFFECT: Design = { params: PLANTED, caps: [1, 2], mergeAttempts: 2, pairs: 10 };
/** Equal recalls and 2 merge attempts: the closed form gives the arms equal survival. */
const NULL: Design = { ...EFFECT, params: { ...PLANTED, self_review_recall: PLANTED.judge_recall } };

/**
 * The rows a "10 pairs per cap" claim is about: levels that reach 5+ pairs (a calibrated
 * interval) in most sweeps. A level most trees never reach (e.g. an early leaf's) has a few
 * pairs at best; its intervals carry the "uncalibrated" label and are reported, not asserted.
 */
const wellPopulated = (rows: CoverageRow[]) => rows.filter((r) => r.calibrated >= SWEEPS / 2);

function draw(design: Design) {
  return { truth: plantedTruth(design), sweeps: Array.from({ length: SWEEPS }, (_, i) => drawSweep(design, i + 1)) };
}

/** Calibrated means near 95% from both sides: far above it, an interval is too wide to show an effect. */
const calibrated = (row: CoverageRow) => {
  const rate = row.calibratedCovered / row.calibrated;
  return rate >= 0.93 && rate <= 0.975;
};

describe('calibration against the planted truth (no Docker)', () => {
  let effect: ReturnType<typeof draw>;
  beforeAll(() => {
    effect = draw(EFFECT);
  });

  it('at 10 pairs per cap, the 95% intervals cover the truth in 93-97.5% of sweeps, per level, arm and difference', () => {
    const rows = coverage(effect.sweeps, effect.truth, 10);
    console.log(coverageTable(`Coverage at 10 pairs per cap (${SWEEPS} sweeps, planted effect)`, rows));
    const asserted = wellPopulated(rows);
    // Both caps' main level, each with both arms and the difference, plus the pooled rows.
    expect(asserted.filter((r) => r.key.startsWith('cap')).map((r) => r.key)).toEqual([
      'cap 1 level 1 difference',
      'cap 1 level 1 gated',
      'cap 1 level 1 ungated',
      'cap 2 level 2 difference',
      'cap 2 level 2 gated',
      'cap 2 level 2 ungated',
    ]);
    for (const row of asserted) expect({ key: row.key, calibrated: calibrated(row) }).toEqual({ key: row.key, calibrated: true });
  });

  it('reports coverage at 2, 3 and 5 pairs, where the intervals are labelled uncalibrated below 5', () => {
    for (const pairs of [5, 3, 2]) {
      const rows = coverage(effect.sweeps, effect.truth, pairs);
      console.log(coverageTable(`Coverage at ${pairs} pairs per cap (${SWEEPS} sweeps, planted effect)`, rows));
      if (pairs < 5) for (const row of rows) expect({ key: row.key, calibrated: row.calibrated }).toEqual({ key: row.key, calibrated: 0 });
      // Every main level still gets an interval in most sweeps (1-pair sweeps get none).
      const main = rows.filter((r) => ['cap 1 level 1 gated', 'cap 2 level 2 gated'].includes(r.key));
      for (const row of main) expect(row.intervals).toBeGreaterThan(SWEEPS / 2);
    }
  });

  it('under a planted null (equal recalls, 2 merge attempts) the difference excludes 0 in <= 7% of sweeps', () => {
    const nil = draw(NULL);
    const rows = coverage(nil.sweeps, nil.truth, 10);
    console.log(coverageTable(`Planted null at 10 pairs per cap (${SWEEPS} sweeps): "excl. 0" is the rejection rate`, rows));
    const differences = wellPopulated(rows).filter((r) => r.key.endsWith('difference'));
    expect(differences.length).toBeGreaterThanOrEqual(2);
    for (const row of differences) {
      if (row.truth !== null) expect(Math.abs(row.truth)).toBeLessThan(1e-12);
      expect({ key: row.key, rejects: row.calibratedExcludingZero / row.calibrated <= 0.07 }).toEqual({ key: row.key, rejects: true });
    }
  });
});
