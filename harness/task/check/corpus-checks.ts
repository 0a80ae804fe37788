import { minus, propertyOf, skipped, type GradedTree, type PropertyResult } from './check-result.js';

/**
 * The SIMULATED corpus against the held-out oracle: with no defect planted it passes every
 * requirement, and a tree carrying planted defects fails exactly the union of what the
 * defect table says they break (the additivity the closed-form truth assumes). Pure.
 */

export interface DefectDeclaration {
  id: string;
  requirement: string;
  breaks: readonly string[];
}

export function corpusClean(trees: readonly GradedTree[]): PropertyResult {
  const clean = trees.filter((t) => t.kind === 'corpus' && !t.members.length);
  if (!clean.length) return skipped('corpus-clean', 'corpus not graded');
  return propertyOf(
    'corpus-clean',
    clean.flatMap((t) => t.failedCases.map((c) => `${t.name}: case ${c.case} (${c.req}) fails: ${c.reason}`)),
    `${clean[0]!.satisfied}/${clean[0]!.total} with no defect planted`,
    `the clean corpus fails ${clean[0]!.failing.join(', ')}`,
  );
}

export function corpusDefects(defects: readonly DefectDeclaration[], requirements: readonly string[], trees: readonly GradedTree[]): PropertyResult {
  const byId = new Map(defects.map((d) => [d.id, d]));
  const graded = trees.filter((t) => t.kind === 'corpus' && t.members.length);
  const uncovered = minus(requirements, defects.map((d) => d.requirement)).map((r) => `${r}: no planted defect`);
  if (!graded.length) return uncovered.length ? propertyOf('corpus-defects', uncovered, '') : skipped('corpus-defects', 'corpus not graded');
  const failures = graded.flatMap((t) => {
    const declared = [...new Set(t.members.flatMap((id) => byId.get(id)?.breaks ?? []))].sort();
    const extra = minus(t.failing, declared);
    const missing = minus(declared, t.failing);
    const parts = [extra.length ? `fails ${extra.join(', ')}, undeclared` : '', missing.length ? `passes ${missing.join(', ')}, declared broken` : ''].filter(Boolean);
    return parts.length ? [`${t.name} (${t.members.join(' + ')}): ${parts.join('; ')}`] : [];
  });
  const alone = graded.filter((t) => t.members.length === 1).length;
  return propertyOf('corpus-defects', [...uncovered, ...failures], `${graded.length} trees (${alone} defects alone) of ${defects.length} defects, each failing exactly the union of its declared breaks`);
}
