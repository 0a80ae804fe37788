import { cellId } from '../journal/run-folder.js';
import { countedRequirements, type CellMeasurement } from '../journal/cell-measurement.js';
import { claimFate } from './merge-decay.js';
import type { ClaimRow } from './claim-schema.js';

export { ClaimRow } from './claim-schema.js';

/**
 * Every counted claim of every measured cell, as the report lists it (the site marks each
 * survived or killed, and publishes them as a CSV): the survival tally's own unit, from the
 * same countedRequirements, and, when the cell's merges were graded, where each killed claim
 * died, from the same claimFate the decay section reads.
 */
export function claimRows(measured: readonly CellMeasurement[], inFigures: ReadonlySet<string>): ClaimRow[] {
  const rows: ClaimRow[] = [];
  for (const m of measured) {
    const id = cellId(m);
    const passing = new Set(m.grade.passing);
    const mergesGraded = m.merges.some((g) => g.grade !== undefined);
    for (const leaf of m.leaves) {
      for (const requirement of countedRequirements(leaf)) {
        const survived = passing.has(requirement);
        const fate = mergesGraded && !survived ? claimFate(leaf.path, requirement, m.merges) : null;
        const located = fate !== null && fate.killedAt !== null && fate.located;
        rows.push({
          cellId: id, cap: m.cap, arm: m.arm, repetition: m.repetition, leaf: leaf.path, level: leaf.level, requirement, survived,
          diedAt: located ? fate.killedAt : null,
          lastPassed: located ? fate.lastPassed : null,
          inFigures: inFigures.has(id),
        });
      }
    }
  }
  return rows;
}
