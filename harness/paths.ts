import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file so the CLI works from any working directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where a spec's agent-facing material lives (`spec/<name>`). */
export function specDir(name: string): string {
  return path.join(REPO_ROOT, 'spec', name);
}

/** Where a spec's held-out grader lives (`oracle/<name>`). Never handed to an agent. */
export function oracleDir(name: string): string {
  return path.join(REPO_ROOT, 'oracle', name);
}

/** Where the grading runner every task's oracle shares lives (`oracle/runner`): the runner and its fork server. */
export function runnerDir(): string {
  return path.join(REPO_ROOT, 'oracle', 'runner');
}

/**
 * The file that marks a folder as held-out material (an oracle): its presence at, above or below
 * a manifest's `spec` path refuses the manifest, so no spec can hand an oracle to agents. Every
 * folder under `oracle/` carries one.
 */
export const HELD_OUT_MARKER = '.held-out';
