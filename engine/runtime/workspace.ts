import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EngineContext, Task } from './engine-context.js';

/**
 * What the engine itself puts in a workspace, beside the work: never part of the deliverable.
 * Each name is an entry at the workspace root. Today there is one:
 * - `.children/<slug>/`: a merge's copy of each child's whole tree, so a merge's own copy holds
 *   its children's `.children/` in turn, and the copies nest as deep as the tree.
 * A merge builds the deliverable at the workspace root from these copies; the grader stages the
 * tree without them (they are measured and reported apart), so code of the deliverable that
 * reads or imports from them fails when graded, as it would wherever the deliverable is shipped.
 */
export const WORKSPACE_SCAFFOLDING = { children: '.children', names: ['.children'] } as const;

/** Whether a workspace-relative path (either separator) lies in the engine's scaffolding. */
export function inScaffolding(rel: string): boolean {
  const top = rel.split(/[\\/]/)[0] ?? '';
  return (WORKSPACE_SCAFFOLDING.names as readonly string[]).includes(top);
}

/** The host directory a node builds in (a leaf) or assembles its children in (a split node). */
export function workspaceOf(ctx: EngineContext, task: Task): string {
  return path.join(ctx.workRoot, task.id, 'ws');
}

/**
 * The node whose workspace `dir` is (the inverse of workspaceOf, `<work root>/<id>/ws`): a seed
 * directory names the prerequisite it came from. The work root is not compared, since a node
 * finishes in the context that assembles it (an arm's own root), not the one that built its seed.
 */
export function nodeOfWorkspace(dir: string): string {
  const id = path.basename(path.dirname(dir));
  if (path.basename(dir) !== 'ws' || !id || id === '.' || id === path.sep) throw new Error(`${dir} is not a node workspace (<work root>/<id>/ws; this is a bug)`);
  return id;
}

/** Creates the node's workspace and copies a prerequisite's real output into it (never its scaffolding). */
export async function prepareWorkspace(ctx: EngineContext, task: Task): Promise<string> {
  const dir = workspaceOf(ctx, task);
  await mkdir(dir, { recursive: true });
  for (const seed of task.seedDirs) {
    await cp(seed, dir, { recursive: true, force: false, errorOnExist: false, filter: (src) => !inScaffolding(path.relative(seed, src)) });
  }
  return dir;
}
