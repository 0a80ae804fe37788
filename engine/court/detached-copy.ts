import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Sandbox } from '../ports/sandbox.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';

let copies = 0;

/**
 * Runs `fn` in a sandbox on a fresh copy of `workspaceDir`, then removes both. Whoever judges
 * work (the verifier, a merge reviewer or a self-review) works here: checks that write files
 * still run, commands can probe the tree, and the judged tree stays byte-identical, so a judge
 * can never repair the work it judges.
 */
export async function inDetachedCopy<T>(ctx: EngineContext, task: Task, workspaceDir: string, what: string, fn: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const copy = path.join(ctx.workRoot, task.id, `${what}-${++copies}`);
  const sandbox = await ctx.sandboxes.create({ workspaceDir: copy, copyFrom: workspaceDir, runId: ctx.runId, purpose: `${task.id}:${what}` });
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.dispose();
    await rm(copy, { recursive: true, force: true });
  }
}
