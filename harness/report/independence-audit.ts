import { familyName } from '../manifest/manifest.js';
import { reviewRelation, type CellMeasurement, type MeasuredReview } from '../journal/cell-measurement.js';
import { cellId } from '../journal/run-folder.js';
import type { IndependenceAudit } from './report-schema.js';

/**
 * Who judged whom. The gated arm is credited with independence, so every gated merge must have
 * been judged, at every attempt, by a family that contributed nothing to the work under review;
 * this counts the share that were and lists every one that was not. Judged on the families the
 * cell recorded, failing closed: an undeclared family never counts as independent. The ungated
 * arm's self-reviews are counted beside it: self by design, their verdicts unused.
 */

type JudgeRow = IndependenceAudit['judges'][number];

function tally(rows: Map<string, JudgeRow>, review: MeasuredReview): void {
  const contributors = [...new Set(review.contributors.map((c) => (c.family === null ? '(undeclared)' : familyName(c.family))))].sort().join(', ');
  const relation = reviewRelation(review);
  const key = JSON.stringify([review.reviewer.model, review.reviewer.family, contributors, relation]);
  const row = rows.get(key) ?? { reviewer: { ...review.reviewer }, contributors, relation, reviews: 0 };
  row.reviews++;
  rows.set(key, row);
}

const sorted = (rows: Map<string, JudgeRow>) => [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);

export function independenceAudit(cells: readonly CellMeasurement[]): IndependenceAudit {
  const judges = new Map<string, JudgeRow>();
  const selfReviewers = new Map<string, JudgeRow>();
  const exceptions: IndependenceAudit['exceptions'] = [];
  let gatedMerges = 0;
  let independentMerges = 0;
  let selfMerges = 0;
  let selfReviews = 0;
  for (const cell of cells) {
    const id = cellId(cell);
    for (const merge of cell.merges) {
      if (cell.arm === 'ungated') {
        selfMerges++;
        selfReviews += merge.reviews.length;
        merge.reviews.forEach((r) => tally(selfReviewers, r));
        continue;
      }
      gatedMerges++;
      merge.reviews.forEach((r) => tally(judges, r));
      const problems: string[] = [];
      if (merge.reviews.length === 0 && !merge.unjudged) problems.push('no review was recorded');
      // An attempt nobody judged is an exception like any other: a missing judgement is never read as independent.
      for (const u of merge.unjudged ?? []) problems.push(`attempt ${u.attempt} was not judged: ${u.reason}`);
      for (const review of merge.reviews) {
        const relation = reviewRelation(review);
        const who = `attempt ${review.attempt}: ${review.reviewer.model} (${review.reviewer.family ?? 'family undeclared'})`;
        if (review.kind !== 'independent') problems.push(`${who} was a self-review`);
        else if (relation === 'self') problems.push(`${who} shares a family with the work it judged`);
        else if (relation === 'unknown') problems.push(`${who}: a family is undeclared, so independence cannot be shown`);
      }
      if (problems.length === 0) independentMerges++;
      else exceptions.push({ cellId: id, nodePath: merge.path, reason: problems.join('; ') });
    }
  }
  return {
    gatedMerges,
    independentMerges,
    share: gatedMerges === 0 ? null : independentMerges / gatedMerges,
    judges: sorted(judges),
    exceptions,
    selfReviews: { merges: selfMerges, reviews: selfReviews, reviewers: sorted(selfReviewers) },
  };
}
