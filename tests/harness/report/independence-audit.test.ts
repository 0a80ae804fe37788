import { describe, expect, it } from 'vitest';
import { buildReport, type CellMeasurement } from '../../../harness/index.js';
import { isolatedDefects } from '../../../harness/testing.js';
import { simCells, simJournal, simManifest, type SimDesign } from './sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/** Who judged whom: every gated merge judged, at every attempt, by a family that contributed nothing; anything less is listed. */

const DESIGN: SimDesign = { params: { seed: 2 }, caps: [2], repetitions: 4, mergeAttempts: 2, defects: isolatedDefects(SPEC_IDS) };
const audit = (cells: CellMeasurement[]) => buildReport({ runName: 'run', events: simJournal(DESIGN, cells), manifest: simManifest(DESIGN) });

/** The cells with the root merge of the first gated cell that merged changed by `change`, and that cell's id. */
function withGatedReview(change: (merge: CellMeasurement['merges'][number]) => void): { cells: CellMeasurement[]; id: string } {
  const cells = structuredClone(simCells(DESIGN));
  const cell = cells.find((c) => c.arm === 'gated' && c.merges.length > 0)!;
  change(cell.merges.find((m) => m.path === 'root')!);
  return { cells, id: `cap${cell.cap}-rep${cell.repetition}-gated` };
}

describe('the independence audit', () => {
  it('finds every gated merge of a cross-family sweep independent, and counts the ungated self-reviews apart', () => {
    const report = audit(simCells(DESIGN));
    const gatedMerges = simCells(DESIGN).filter((c) => c.arm === 'gated').reduce((n, c) => n + c.merges.length, 0);
    expect(report.independence).toMatchObject({ gatedMerges, independentMerges: gatedMerges, share: 1, exceptions: [] });
    expect(report.independence.judges).toEqual([expect.objectContaining({ reviewer: { model: 'sim-reviewer', family: 'sim-beta' }, contributors: 'sim-alpha', relation: 'independent' })]);
    expect(report.independence.selfReviews.reviewers).toEqual([expect.objectContaining({ reviewer: { model: 'sim-executor', family: 'sim-alpha' }, relation: 'self' })]);
    expect(report.caveats.map((c) => c.kind)).not.toContain('independence');
  });

  it('lists a gated merge judged by a contributing family (compared as a name), an undeclared family, a self-review and a missing review', () => {
    const cases: Array<[string, (m: CellMeasurement['merges'][number]) => void]> = [
      ['shares a family', (m) => (m.reviews[0]!.reviewer = { model: 'fallback', family: ' SIM-Alpha ' })],
      ['family is undeclared', (m) => (m.reviews[0]!.reviewer = { model: 'fallback', family: null })],
      ['was a self-review', (m) => (m.reviews[0]!.kind = 'self')],
      ['no review was recorded', (m) => (m.reviews = [])],
    ];
    for (const [reason, change] of cases) {
      const { cells, id } = withGatedReview(change);
      const report = audit(cells);
      expect(report.independence.share).toBeLessThan(1);
      expect(report.independence.exceptions).toEqual([{ cellId: id, nodePath: 'root', reason: expect.stringContaining(reason) }]);
      expect(report.caveats.find((c) => c.kind === 'independence')?.text).toMatch(/^INDEPENDENCE NOT SHOWN: 1 of \d+ gated merges/);
    }
  });
});
