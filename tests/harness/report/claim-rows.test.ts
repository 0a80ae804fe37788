import { describe, expect, it } from 'vitest';
import { claimFate, claimRows, survivalTally, type CellMeasurement, type MeasuredMerge } from '../../../harness/index.js';
import { goldenCells } from './golden-fixture.js';

/**
 * The report's claim list: every counted claim of every measured cell, survived or killed, and
 * where a killed one died when its merges were graded. Built on one cap-2 cell whose tree is
 * root -> root.1 -> root.1.1 / root.1.2, root -> root.2, with hand-set grades.
 */

const graded = (passing: string[]): MeasuredMerge['grade'] => ({ status: 'graded', passing });
const merge = (path: string, level: number, grade?: MeasuredMerge['grade']): MeasuredMerge => ({ path, level, children: 2, attempts: 1, reviews: [], ...(grade ? { grade } : {}) });

function cell(merges: MeasuredMerge[], rootPassing: string[]): CellMeasurement {
  const base = goldenCells().find((c) => c.cap === 2 && c.arm === 'gated')!;
  const claim = (requirement: string | null) => ({ criterion: `criterion ${requirement}`, requirement });
  return {
    ...base,
    leaves: [
      { path: 'root.1.1', level: 2, room: false, delivered: true, claims: [claim('R01'), claim('R02'), claim('R01'), claim(null)] },
      { path: 'root.1.2', level: 2, room: false, delivered: true, claims: [claim('R03')] },
      { path: 'root.2', level: 1, room: true, delivered: true, claims: [claim('R04')] },
      { path: 'root.3', level: 1, room: true, delivered: false, claims: [claim('R05')] },
    ],
    merges,
    grade: { ...base.grade, passing: rootPassing },
  };
}

describe('claimFate', () => {
  const merges = [merge('root', 0, graded(['R01'])), merge('root.1', 1, graded(['R02']))];
  it('names the first failing graded node after the claim last passed, and where it last passed', () => {
    expect(claimFate('root.1.1', 'R02', merges)).toMatchObject({ killedAt: 'root', lastPassed: 'root.1', located: true });
    expect(claimFate('root.1.2', 'R03', merges)).toMatchObject({ killedAt: 'root.1', lastPassed: null, located: true });
  });
  it('reads a claim that fails at a merge and passes at a shallower one as revived, not killed', () => {
    const fate = claimFate('root.1.1', 'R01', merges);
    expect(fate.killedAt).toBeNull();
    expect(fate.revivals).toEqual([{ failedAt: 'root.1', passedAgainAt: 'root' }]);
  });
  it('does not locate a death behind a merge that was not graded', () => {
    const hidden = [merge('root', 0, graded([])), merge('root.1', 1, { status: 'not_gradable', reason: 'its tree has no sqlcsv/' })];
    expect(claimFate('root.1.1', 'R02', hidden)).toMatchObject({ killedAt: 'root', located: false });
  });
});

describe('claimRows', () => {
  it('lists each requirement a delivered leaf claims once, survived exactly when the root grade passes it: the survival tally, claim by claim', () => {
    const m = cell([merge('root', 0), merge('root.1', 1)], ['R01', 'R04']);
    const rows = claimRows([m], new Set(['cap2-rep1-gated']));
    expect(rows.map((r) => `${r.leaf} ${r.requirement} ${r.survived ? 'survived' : 'killed'} ${r.diedAt}`)).toEqual([
      'root.1.1 R01 survived null',
      'root.1.1 R02 killed null',
      'root.1.2 R03 killed null',
      'root.2 R04 survived null',
    ]);
    const tally = survivalTally(m);
    for (const level of tally.levels) {
      const at = rows.filter((r) => r.level === level.level);
      expect([at.length, at.filter((r) => r.survived).length]).toEqual([level.claimed, level.surviving]);
    }
    expect(rows.every((r) => r.inFigures && r.cellId === 'cap2-rep1-gated' && r.cap === 2 && r.arm === 'gated')).toBe(true);
  });

  it('with merges graded, says where each killed claim died and where it last passed', () => {
    const m = cell([merge('root', 0, graded(['R01', 'R04'])), merge('root.1', 1, graded(['R02']))], ['R01', 'R04']);
    const killed = claimRows([m], new Set()).filter((r) => !r.survived);
    expect(killed.map((r) => [r.requirement, r.diedAt, r.lastPassed, r.inFigures])).toEqual([
      ['R02', 'root', 'root.1', false],
      ['R03', 'root.1', null, false],
    ]);
  });

  it('leaves diedAt null where a merge that could not be graded hides the death', () => {
    const m = cell([merge('root', 0, graded(['R01', 'R04'])), merge('root.1', 1, { status: 'not_gradable', reason: 'its tree has no sqlcsv/' })], ['R01', 'R04']);
    expect(claimRows([m], new Set()).filter((r) => !r.survived).map((r) => r.diedAt)).toEqual([null, null]);
  });
});
