import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { pruneSandboxes } from '../../engine/index.js';
import { removeLeftoverScratch } from '../grading/scratch-folder.js';

/**
 * A run's identity and what a killed invocation of it leaves behind. The run id is made once,
 * pinned in the journal header, and carried by every container, workspace volume and grading
 * scratch folder of the run, so a resume can remove exactly its own leftovers (whose owning
 * process is gone), and a second run folder of the same name never touches them.
 */

/** A new run's id (lower-case letters, digits and "-"; unique across run folders of the same name). */
export function newRunId(now: Date = new Date()): string {
  return `r${now.getTime().toString(36)}-${randomBytes(4).toString('hex')}`;
}

export interface Leftovers {
  containers: number;
  volumes: number;
  scratch: number;
}

/**
 * Removes what earlier invocations of run `runId` left: its containers and volumes on every
 * daemon given whose owning process no longer runs, and its grading scratch folders likewise.
 * What a live process (another invocation still running, another run) owns is left alone.
 */
export async function removeLeftovers(runId: string, dockers: readonly Docker[]): Promise<Leftovers> {
  const found: Leftovers = { containers: 0, volumes: 0, scratch: 0 };
  for (const docker of dockers) {
    const pruned = await pruneSandboxes(docker, { runId });
    found.containers += pruned.removed.length;
    found.volumes += pruned.volumes.length;
  }
  found.scratch = await removeLeftoverScratch(runId);
  return found;
}

/** The line a resume prints when it removed anything. */
export function leftoversLine(runId: string, l: Leftovers): string | undefined {
  if (l.containers + l.volumes + l.scratch === 0) return undefined;
  return `harness: removed what an earlier invocation of run ${runId} left behind: ${l.containers} container(s), ${l.volumes} workspace volume(s), ${l.scratch} grading scratch folder(s)`;
}
