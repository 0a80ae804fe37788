import { beforeAll, describe, expect, it } from 'vitest';
import type { SurvivalOptions } from '../../../harness/index.js';
import { COVERAGE_BAND, MAX_NULL_REJECTION, SWEEPS, coverage, coverageTable, drawAll, fivePlusCoverage, wellPopulated, type CoverageRow, type Design } from './calibration-support.js';

/**
 * The calibration cases every population runs (calibration.test.ts: the sim's default
 * population; calibration-smoke.test.ts: the smoke manifest's rates, where perfect gated cells
 * are common). One file per population so that vitest runs them on two workers.
 */
export function calibrationCases(population: string, effect: Design, options: SurvivalOptions, mainRows: readonly string[]): void {
  /** Equal recalls and 2 merge attempts: the closed form gives the arms equal survival. */
  const nullDesign: Design = { ...effect, params: { ...effect.params, self_review_recall: effect.params.judge_recall } };

  describe(`calibration against the planted truth at ${population} (no Docker)`, () => {
    let drawn: ReturnType<typeof drawAll>;
    let atTen: CoverageRow[];
    beforeAll(() => {
      drawn = drawAll(effect);
      atTen = coverage(drawn.sweeps, drawn.truth, 10, options);
    });

    it(`at 10 pairs per cap, the 95% intervals cover the truth in 93-97.5% of sweeps, per level, arm and difference`, () => {
      const rows = atTen;
      console.log(coverageTable(`${population}: coverage at 10 pairs per cap (${SWEEPS} sweeps, planted effect)`, rows));
      const asserted = wellPopulated(rows);
      expect(asserted.filter((r) => r.key.startsWith('cap')).map((r) => r.key)).toEqual(mainRows);
      for (const row of asserted) {
        const rate = fivePlusCoverage(row);
        expect({ key: row.key, rate, inBand: rate >= COVERAGE_BAND[0] && rate <= COVERAGE_BAND[1] }).toEqual({ key: row.key, rate, inBand: true });
      }
    });

    it('no interval has zero width, at 2, 3, 5 or 10 pairs; labels stay honest below 5 pairs', () => {
      for (const pairs of [10, 5, 3, 2]) {
        const rows = pairs === 10 ? atTen : coverage(drawn.sweeps, drawn.truth, pairs, options);
        if (pairs < 10) console.log(coverageTable(`${population}: coverage at ${pairs} pairs per cap (${SWEEPS} sweeps, planted effect)`, rows));
        for (const row of rows) expect({ key: row.key, pairs, zeroWidth: row.zeroWidth }).toEqual({ key: row.key, pairs, zeroWidth: 0 });
        if (pairs < 5) for (const row of rows) expect({ key: row.key, calibrated: row.calibrated }).toEqual({ key: row.key, calibrated: 0 });
        // Every main level still gets an interval in most sweeps (1-pair sweeps get none).
        for (const row of rows.filter((r) => mainRows.includes(r.key))) expect(row.intervals).toBeGreaterThan(SWEEPS / 2);
      }
    });

    it(`under a planted null (self_review_recall = judge_recall, 2 merge attempts) the difference excludes 0 in <= 7% of sweeps`, () => {
      const nil = drawAll(nullDesign);
      const rows = coverage(nil.sweeps, nil.truth, 10, options);
      console.log(coverageTable(`${population}: planted null at 10 pairs per cap (${SWEEPS} sweeps): "excl. 0" is the rejection rate`, rows));
      const differences = wellPopulated(rows).filter((r) => r.key.endsWith('difference'));
      expect(differences.length).toBeGreaterThanOrEqual(2);
      for (const row of differences) {
        if (row.truth !== null) expect(Math.abs(row.truth)).toBeLessThan(1e-12);
        const rate = row.fivePlusExcludingZero / row.fivePlus;
        expect({ key: row.key, rate, rejects: rate <= MAX_NULL_REJECTION }).toEqual({ key: row.key, rate, rejects: true });
      }
      for (const row of rows) expect({ key: row.key, zeroWidth: row.zeroWidth }).toEqual({ key: row.key, zeroWidth: 0 });
    });
  });
}
