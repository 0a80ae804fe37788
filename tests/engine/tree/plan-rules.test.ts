import { describe, expect, it } from 'vitest';
import { achievedLevels, atomicity, hasRoom, isOneFileGoal, maySplitAtDepth, namedFiles } from '../../../engine/index.js';

describe('plan rules', () => {
  it('counts depth in planning levels: a cap of N fully used puts leaves at depth N', () => {
    expect(hasRoom(0, 1)).toBe(false);
    expect(hasRoom(0, 2)).toBe(true);
    expect([0, 1, 2, 3].map((d) => maySplitAtDepth(d, 3))).toEqual([true, true, true, false]);
    expect([0, 1].map((d) => maySplitAtDepth(d, 1))).toEqual([true, false]);
    expect(achievedLevels([3, 3, 2])).toBe(3);
    expect(achievedLevels([])).toBe(0);
  });

  it('applies the one-file rule by regex', () => {
    expect(isOneFileGoal('Write hello.py that prints hello')).toBe(true);
    expect(isOneFileGoal('Update notes/storage.py so it persists to a JSON file')).toBe(true);
    expect(isOneFileGoal('Write cli.py and storage.py for a notes app')).toBe(false);
    expect(isOneFileGoal('Build a notes app')).toBe(false);
    expect(namedFiles('Write cli.py, then cli.py tests in tests/test_cli.py')).toEqual(['cli.py', 'tests/test_cli.py']);
  });

  it('marks a WORK unit oversized by claims, artifacts or criteria, and never a DECISION', () => {
    const unit = { kind: 'work' as const, artifacts: ['a.py'], criteria: ['x'], claims: ['R01 text'] };
    expect(atomicity(unit)).toEqual({ oversized: false, reasons: [] });
    expect(atomicity({ ...unit, claims: ['R01 text', 'R02 text'] })).toEqual({ oversized: true, reasons: ['claims 2 objective criteria (limit 1)'] });
    expect(atomicity({ ...unit, artifacts: ['a', 'b', 'c', 'd'] }).oversized).toBe(true);
    expect(atomicity({ ...unit, kind: 'decision', claims: ['a', 'b', 'c'] })).toEqual({ oversized: false, reasons: [] });
  });
});
