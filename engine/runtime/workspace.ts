import { cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { EngineContext, Task } from './engine-context.js';

/** The host directory a node builds in (a leaf) or assembles its children in (a split node). */
export function workspaceOf(ctx: EngineContext, task: Task): string {
  return path.join(ctx.workRoot, task.id, 'ws');
}

/** Creates the node's workspace and copies a prerequisite's real output into it. */
export async function prepareWorkspace(ctx: EngineContext, task: Task): Promise<string> {
  const dir = workspaceOf(ctx, task);
  await mkdir(dir, { recursive: true });
  for (const seed of task.seedDirs) {
    await cp(seed, dir, { recursive: true, force: false, errorOnExist: false, filter: (src) => !src.includes(`${path.sep}.children`) });
  }
  return dir;
}
