import { gradeLeavesOf, gradeMergesOf, type Manifest } from '../manifest/manifest.js';
import { loadTaskDefinition, type TaskDefinition } from '../task/task-definition.js';

/**
 * What makes a tree the task's runnable deliverable: the `deliverable` block of the spec
 * folder's task.yaml (package, command and the entry points a tree must hold at its root).
 * With grade_merges, a merged subtree is graded only when its tree holds every entry point;
 * any other subtree is a piece of the deliverable, "not gradable here", never a death.
 */
export async function deliverableOf(specDir: string): Promise<TaskDefinition['deliverable']> {
  return (await loadTaskDefinition(specDir)).deliverable;
}

/** The merge-by-merge grading a sweep asks for (`grade_merges`), with the entry points its spec's task declares; undefined when off. */
export async function mergeGradingOf(manifest: Pick<Manifest, 'grade_merges'>, specDir: string, simulated: boolean): Promise<{ entryPoints: readonly string[] } | undefined> {
  if (!gradeMergesOf(manifest, simulated)) return undefined;
  return { entryPoints: (await deliverableOf(specDir)).entry_points };
}

/** The leaf-by-leaf grading a sweep asks for (`grade_leaves`), with the entry points its spec's task declares; undefined when off. */
export async function leafGradingOf(manifest: Pick<Manifest, 'grade_leaves'>, specDir: string, simulated: boolean): Promise<{ entryPoints: readonly string[] } | undefined> {
  if (!gradeLeavesOf(manifest, simulated)) return undefined;
  return { entryPoints: (await deliverableOf(specDir)).entry_points };
}
