import { describe, expect, it } from 'vitest';
import { CellMeasurement, beyondClaimsSection } from '../../../harness/index.js';
import { sampleMeasurement } from '../journal/sweep-fixtures.js';

/**
 * The report's "work beyond the claims" section (grade_leaves): per cap, over each tree's leaves
 * below the root, how many graded leaves pass requirements they did not claim, and how many.
 */
const graded = (...passing: string[]) => ({ status: 'graded' as const, passing });

function cell(id: string, pairing: 'shared' | 'independent', leafGrades: Array<ReturnType<typeof graded> | { status: 'not_gradable'; reason: string } | undefined>): { id: string; m: CellMeasurement } {
  const base = sampleMeasurement(id);
  const leaves = base.leaves.map((leaf, i) => ({ ...leaf, ...(leafGrades[i] ? { grade: leafGrades[i] } : {}) }));
  return { id, m: CellMeasurement.parse({ ...base, pairing, leaves }) };
}

describe('work beyond the claims', () => {
  it('counts each shared tree once, graded leaves apart from the rest, and every requirement passing beyond a claim', () => {
    // The sample leaves claim R01 (root.0) and R02 (root.1).
    const cap1 = [graded('R01', 'R03', 'R04'), graded('R02')];
    const cap2 = [{ status: 'not_gradable' as const, reason: 'its tree has no sqlcsv/__main__.py' }, graded('R01', 'R02', 'R05')];
    const section = beyondClaimsSection(
      [cell('cap1-rep1-gated', 'shared', cap1), cell('cap1-rep1-ungated', 'shared', cap1), cell('cap2-rep1-gated', 'shared', cap2), cell('cap2-rep1-ungated', 'shared', cap2)],
      true,
    );
    expect(section).toEqual({
      specTotal: 42,
      rows: [
        { cap: 1, leaves: 2, graded: 2, beyond: 1, share: 0.5, requirements: 2, meanPerLeaf: 1, truth: 1 },
        { cap: 2, leaves: 2, graded: 1, beyond: 1, share: 1, requirements: 2, meanPerLeaf: 2, truth: 1 },
      ],
      leaves: [
        { cellId: 'cap1-rep1-gated', leaf: 'root.0', claimed: ['R01'], beyond: ['R03', 'R04'] },
        { cellId: 'cap2-rep1-gated', leaf: 'root.1', claimed: ['R02'], beyond: ['R01', 'R05'] },
      ],
    });
  });

  it('counts each arm’s own tree under independent pairing, and has no truth outside a SIMULATED sweep', () => {
    const section = beyondClaimsSection([cell('cap1-rep1-gated', 'independent', [graded('R01', 'R09'), graded('R02')]), cell('cap1-rep1-ungated', 'independent', [graded('R01'), graded('R02')])], false);
    expect(section?.rows).toEqual([{ cap: 1, leaves: 4, graded: 4, beyond: 1, share: 0.25, requirements: 1, meanPerLeaf: 0.25, truth: null }]);
  });

  it('is absent when no leaf was graded, and says "none graded" rather than a ratio of nothing', () => {
    expect(beyondClaimsSection([cell('cap1-rep1-gated', 'shared', [])], true)).toBeUndefined();
    const none = beyondClaimsSection([cell('cap1-rep1-gated', 'shared', [{ status: 'not_gradable', reason: 'its tree has no x' }])], true);
    expect(none?.rows).toEqual([{ cap: 1, leaves: 2, graded: 0, beyond: 0, share: null, requirements: 0, meanPerLeaf: null, truth: 1 }]);
  });
});
