import { gradeLeavesOf, gradeMergesOf, type Manifest } from '../manifest/manifest.js';
import { loadTaskDefinition, type TaskDefinition } from '../task/task-definition.js';

/**
 * What makes a tree the task's runnable deliverable: the `deliverable` block of the spec
 * folder's task.yaml (package, command and the entry points a tree must hold at its root).
 * With grade_merges or grade_leaves, a merged subtree or a leaf is graded only when its tree
 * holds every entry point; any other is a piece of the deliverable, "not gradable here", never a death.
 */
export async function deliverableOf(specDir: string): Promise<TaskDefinition['deliverable']> {
  return (await loadTaskDefinition(specDir)).deliverable;
}

/** The trees below the root a sweep grades, each with the entry points its spec's task declares; a key is absent when that grading is off. */
export interface NodeGradings {
  /** Every merged subtree (`grade_merges`). */
  gradeMerges?: { entryPoints: readonly string[] };
  /** Every leaf's own tree (`grade_leaves`). */
  gradeLeaves?: { entryPoints: readonly string[] };
}

/** The gradings below the root that `on` turns on, the task's entry points read once. */
export async function nodeGradingsOf(specDir: string, on: { merges: boolean; leaves: boolean }): Promise<NodeGradings> {
  if (!on.merges && !on.leaves) return {};
  const grading = { entryPoints: (await deliverableOf(specDir)).entry_points };
  return { ...(on.merges ? { gradeMerges: grading } : {}), ...(on.leaves ? { gradeLeaves: grading } : {}) };
}

/** What the manifest asks for: its `grade_merges` and `grade_leaves`, else each on exactly when the sweep is SIMULATED. */
export function nodeGradingsAsked(manifest: Pick<Manifest, 'grade_merges' | 'grade_leaves'>, simulated: boolean): { merges: boolean; leaves: boolean } {
  return { merges: gradeMergesOf(manifest, simulated), leaves: gradeLeavesOf(manifest, simulated) };
}
