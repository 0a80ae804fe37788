import type { NodeResult } from '../../engine/index.js';
import type { GradeResult } from '../grading/grading-report.js';
import { countedRequirements, type LeafClaim, type MeasuredLeaf, type MeasuredMerge } from '../journal/cell-measurement.js';
import type { NodeGrade } from './node-grading.js';

/**
 * Merge by merge (`grade_merges`): what each graded subtree says about the claims under it.
 * A node's grade counts only the requirements claimed under it (by delivered leaves, resolved),
 * and each such claim records the shallowest node on its way to the root whose tree passes it:
 * where it last passed. A node that could not be graded says nothing either way.
 */

export interface MergeGrading {
  /** The root's grade (the cell's own), and every other merged node's, by node id. */
  root: { id: string; grade: GradeResult };
  others: ReadonlyMap<string, NodeGrade>;
}

/** Whether `requirement` passes in the tree of node `id`: null when that node was not graded. */
function passesAt(g: MergeGrading, id: string, requirement: string): boolean | null {
  const grade = id === g.root.id ? g.root.grade : g.others.get(id)?.status === 'graded' ? (g.others.get(id) as { grade: GradeResult }).grade : null;
  return grade ? (grade.requirements.find((r) => r.id === requirement)?.pass ?? false) : null;
}

/** Node id -> its ancestors, parent first, root last (the root's own list is empty). */
function ancestorsOf(root: NodeResult): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const walk = (node: NodeResult, above: string[]) => {
    out.set(node.id, above);
    for (const child of node.children) walk(child, [node.id, ...above]);
  };
  walk(root, []);
  return out;
}

/** The leaves with `lastPassed` on every counted claim, and each merge with its grade. */
export function withMergeGrades(root: NodeResult, g: MergeGrading, leaves: MeasuredLeaf[], merges: MeasuredMerge[]): { leaves: MeasuredLeaf[]; merges: MeasuredMerge[] } {
  const ancestors = ancestorsOf(root);
  const pathOf = (leaf: MeasuredLeaf) => (leaf.path === g.root.id ? [g.root.id] : (ancestors.get(leaf.path) ?? []));
  const withFate = leaves.map((leaf) => {
    const chain = pathOf(leaf);
    const claims = leaf.claims.map((c): LeafClaim => {
      if (!leaf.delivered || c.requirement === null) return c;
      // Deepest first: the last node on the way up that passes it is where it last passed.
      let last: string | null = null;
      for (const id of chain) if (passesAt(g, id, c.requirement) === true) last = id;
      return { ...c, lastPassed: last };
    });
    return { ...leaf, claims };
  });
  const graded = merges.map((merge): MeasuredMerge => {
    if (merge.path !== g.root.id && g.others.get(merge.path)?.status !== 'graded') {
      const other = g.others.get(merge.path);
      return { ...merge, grade: { status: 'not_gradable', reason: other?.status === 'not_gradable' ? other.reason : 'not graded' } };
    }
    const under = new Set(withFate.filter((l) => pathOf(l).includes(merge.path)).flatMap(countedRequirements));
    return { ...merge, grade: { status: 'graded', passing: [...under].filter((r) => passesAt(g, merge.path, r) === true).sort() } };
  });
  return { leaves: withFate, merges: graded };
}
