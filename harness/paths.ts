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
