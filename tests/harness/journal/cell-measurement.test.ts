import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CellMeasurement, beyondClaims, cellCounts, openJournal, readSweepJournal, reviewRelation, survivalTally, totalSpend, type MeasuredReview } from '../../../harness/index.js';
import { header, sampleMeasurement, stamped } from './sweep-fixtures.js';

const claim = (requirement: string | null, criterion = `criterion naming ${requirement ?? 'nothing'}`) => ({ criterion, requirement });

/** A cap-3 cell whose tree stopped short of its cap: leaves at levels 0..2 only where the planner went. */
function shallowCell(): CellMeasurement {
  return {
    ...sampleMeasurement('cap3-rep1-gated'),
    leaves: [
      { path: 'root.0', level: 1, room: true, delivered: true, claims: [claim('R01'), claim('R02'), claim('R01', 'R01 again, in other words'), claim(null)] },
      { path: 'root.1.0', level: 2, room: true, delivered: true, claims: [claim('R03'), claim('R04')] },
      { path: 'root.1.1', level: 2, room: true, delivered: false, claims: [claim('R05'), claim(null)] },
    ],
    merges: [
      { path: 'root', level: 0, children: 2, attempts: 1, reviews: [] },
      { path: 'root.1', level: 1, children: 2, attempts: 2, reviews: [] },
    ],
    grade: { passing: ['R01', 'R04', 'R05', 'R40'], total: 42, testsCarried: 3 },
  };
}

describe('cell measurement: the survival tally', () => {
  it('bins each claim on the level its leaf sat at (root = 0), never on the cap', () => {
    const tally = survivalTally(CellMeasurement.parse(shallowCell()));
    expect(tally).toEqual({
      cap: 3,
      repetition: 1,
      arm: 'gated',
      levels: [
        // R01 counted once however many criteria name it; the unresolved claim is dropped.
        { level: 1, claimed: 2, surviving: 1 },
        // The undelivered leaf's claims leave the denominator, passing or not.
        { level: 2, claimed: 2, surviving: 1 },
      ],
    });
  });

  it('puts a root that executed as a leaf at level 0', () => {
    const cell = { ...sampleMeasurement('cap2-rep1-ungated'), leaves: [{ path: 'root', level: 0, room: true, delivered: true, claims: [claim('R01'), claim('R02')] }], merges: [] };
    expect(survivalTally(CellMeasurement.parse(cell)).levels).toEqual([{ level: 0, claimed: 2, surviving: 1 }]);
  });

  it('counts what changes a number’s meaning', () => {
    expect(cellCounts(CellMeasurement.parse(shallowCell()))).toEqual({ leaves: 3, leavesNotDelivered: 1, claimsDropped: 2, escalations: 0, deepestLevel: 2, specFraction: 4 / 42 });
  });
});

describe('cell measurement: independence of a review, on families', () => {
  const review = (reviewer: string | null, ...contributors: (string | null)[]): MeasuredReview => ({
    attempt: 1,
    kind: 'independent',
    reviewer: { model: 'judge', family: reviewer },
    contributors: contributors.map((family, i) => ({ model: `worker-${i}`, family })),
    verdict: 'approve',
  });
  it('is independent only when the judge’s family contributed nothing, compared as a name', () => {
    expect(reviewRelation(review('vendor-b', 'vendor-a'))).toBe('independent');
    expect(reviewRelation(review(' Vendor-A ', 'vendor-b', 'vendor-a'))).toBe('self');
    // Fail closed: a family nobody declared is never read as different.
    expect(reviewRelation(review(null, 'vendor-a'))).toBe('unknown');
    expect(reviewRelation(review('vendor-b', 'vendor-a', null))).toBe('unknown');
  });
});

describe('cell measurement: what the schema refuses', () => {
  const problems = (cell: unknown) => {
    const parsed = CellMeasurement.safeParse(cell);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };
  it('refuses impossible trees and grades', () => {
    const cell = shallowCell();
    expect(problems({ ...cell, leaves: [...cell.leaves, { ...cell.leaves[0]!, level: 4 }] })).toEqual([
      'leaves.3.path: node "root.0" appears twice',
      'leaves.3.level: a leaf at level 4 is deeper than cap 3 allows',
    ]);
    expect(problems({ ...cell, merges: [{ ...cell.merges[0]!, level: 3, reviews: [{ ...sampleMeasurement('cap3-rep1-gated').merges[0]!.reviews[0]!, attempt: 2 }] }] })).toEqual([
      'merges.0.level: a node at level 3 cannot split under cap 3',
      'merges.0.reviews.0.attempt: review of attempt 2, but the merge spent 1',
    ]);
    expect(problems({ ...cell, grade: { ...cell.grade, passing: ['R01', 'R01'] } })).toEqual(['grade.passing: lists a requirement twice']);
    expect(problems({ ...cell, leaves: [] })).toHaveLength(1);
  });

  it('never reads an unknown price as free', () => {
    const cell = shallowCell();
    const leaf = cell.spend.leaf;
    expect(problems({ ...cell, spend: { ...cell.spend, leaf: { ...leaf, unpricedSessions: 1 } } })).toEqual(['spend.leaf.costUsd: costUsd is null exactly when some session had no known price']);
    expect(problems({ ...cell, spend: { ...cell.spend, leaf: { ...leaf, costUsd: null, unpricedSessions: 1 } } })).toEqual([]);
    expect(problems({ ...cell, spend: { ...cell.spend, leaf: { ...leaf, costUsd: Number.NaN } } })).toHaveLength(1);
    expect(totalSpend([leaf, { ...leaf, costUsd: null, unpricedSessions: 1 }])).toMatchObject({ sessions: 4, costUsd: null, unpricedSessions: 1 });
    expect(totalSpend([leaf, leaf])).toMatchObject({ sessions: 4, costUsd: 0.2, unpricedSessions: 0 });
  });
});

describe('cell_finished carries a CellMeasurement (version 2)', () => {
  const journalFile = async () => path.join(await mkdtemp(path.join(tmpdir(), 'rdh-cell-measurement-')), 'journal.jsonl');

  it('refuses a measurement of another cell than the event names', async () => {
    const journal = await openJournal(await readSweepJournal(await journalFile()));
    const error = await journal.append({ type: 'cell_finished', cellId: 'cap1-rep1-gated', outcome: { status: 'measured', result: sampleMeasurement('cap1-rep2-gated') } }).catch((e: Error) => e);
    expect((error as Error).message).toMatchInlineSnapshot(`"refused to journal a cell_finished event: outcome.result: measures cap1-rep2-gated, not the event's cell cap1-rep1-gated"`);
    await journal.close();
  });

  it('refuses a version-1 cell_finished line (opaque result) rather than misreading it', async () => {
    const file = await journalFile();
    const [head, finished] = stamped([header(), { type: 'cell_finished', cellId: 'cap1-rep1-gated', outcome: { status: 'measured', result: sampleMeasurement('cap1-rep1-gated') } }]);
    await writeFile(file, `${JSON.stringify(head)}\n${JSON.stringify({ ...finished, version: 1, outcome: { status: 'measured', result: { survival: 0.8 } } })}\n`);
    await expect(readSweepJournal(file, { shownAs: 'run/journal.jsonl' })).rejects.toThrow(/run\/journal\.jsonl line 2/);
  });
});

describe('cell measurement: what a leaf built beyond its claims (grade_leaves)', () => {
  const graded = (...passing: string[]) => ({ status: 'graded' as const, passing });
  /** A prerequisite leaf (root.1) seeded into its sibling (root.2); root.3 was not gradable; root.4 was not graded at all. */
  function seededCell(): CellMeasurement {
    return CellMeasurement.parse({
      ...sampleMeasurement('cap1-rep1-gated'),
      cap: 1,
      leaves: [
        { path: 'root.1', level: 1, room: false, delivered: true, claims: [claim('R01')], grade: graded('R01', 'R02', 'R07') },
        { path: 'root.2', level: 1, room: false, delivered: true, claims: [claim('R03'), claim(null)], seeds: ['root.1'], grade: graded('R01', 'R02', 'R03', 'R04', 'R07', 'R09') },
        { path: 'root.3', level: 1, room: false, delivered: true, claims: [claim('R05')], grade: { status: 'not_gradable', reason: 'its tree has no sqlcsv/__main__.py' } },
        { path: 'root.4', level: 1, room: false, delivered: false, claims: [claim('R06')] },
      ],
      merges: [{ path: 'root', level: 0, children: 4, attempts: 1, reviews: [] }],
    });
  }

  it('counts what a leaf’s own tree passes that neither it nor a prerequisite handed to it claims or passes', () => {
    const cell = seededCell();
    const [prerequisite, seeded, notGradable, notGraded] = cell.leaves;
    expect(beyondClaims(prerequisite!, cell)).toEqual(['R02', 'R07']);
    // R01 (the seed's claim) and R02, R07 (what the seed's own tree passes) came with the seed; R04 and R09 are its own.
    expect(beyondClaims(seeded!, cell)).toEqual(['R04', 'R09']);
    expect(beyondClaims(notGradable!, cell)).toBeUndefined();
    expect(beyondClaims(notGraded!, cell)).toBeUndefined();
  });

  it('refuses a seed that is not another leaf of the cell', () => {
    const cell = seededCell();
    const bad = { ...cell, leaves: cell.leaves.map((l) => (l.path === 'root.2' ? { ...l, seeds: ['root.9'] } : l)) };
    expect(CellMeasurement.safeParse(bad).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual(['leaves.1.seeds.0: seed "root.9" is not another leaf of this cell']);
  });
});
