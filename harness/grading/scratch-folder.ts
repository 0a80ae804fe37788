import { rmSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processAlive } from '../../engine/index.js';

/**
 * A grading's scratch folder (the oracle's runner and expected outputs, the staged tree): in the
 * system temp folder, never inside runs/, named `rdh-grade-<run id>-<pid>-*` so that what a
 * killed process left can be told apart from what a live one is using, and by which run. Every
 * exit path removes it: the grading's own `finally`, and a process exit that skips it (a second
 * Ctrl-C) through the handler below. Only a SIGKILL can leave one; the next resume of the same
 * run removes it ({@link removeLeftoverScratch}).
 */

const PREFIX = 'rdh-grade-';
const live = new Set<string>();
let hooked = false;

function removeLiveOnExit(): void {
  for (const dir of live) rmSync(dir, { recursive: true, force: true });
}

/** Makes a scratch folder for `runId` owned by this process. */
export async function makeScratch(runId: string, root: string = tmpdir()): Promise<string> {
  if (!hooked) {
    process.once('exit', removeLiveOnExit);
    hooked = true;
  }
  const dir = await mkdtemp(path.join(root, `${PREFIX}${safe(runId)}-${process.pid}-`));
  live.add(dir);
  return dir;
}

/** Removes a scratch folder made by {@link makeScratch}. */
export async function removeScratch(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}

/**
 * Removes the scratch folders of `runId` whose owning process no longer runs (a kill during a
 * grading); folders of live processes, and of other runs, are left. Returns how many it removed.
 */
export async function removeLeftoverScratch(runId: string, root: string = tmpdir()): Promise<number> {
  const mine = new RegExp(`^${PREFIX}${escape(safe(runId))}-(\\d+)-[^-]+$`);
  let removed = 0;
  for (const name of await readdir(root).catch(() => [] as string[])) {
    const pid = Number(mine.exec(name)?.[1]);
    if (!pid || processAlive(pid)) continue;
    await rm(path.join(root, name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}

/** A run id as a file-name part: what a folder name may hold. */
function safe(runId: string): string {
  return runId.replace(/[^A-Za-z0-9._-]+/g, '_');
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

