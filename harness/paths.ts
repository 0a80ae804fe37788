import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The repository root: the folder above this module that holds package.json. Found by walking
 * up, because this module runs from harness/ under tsx and from dist/harness/ compiled, while the
 * assets it locates (spec/, oracle/, schemas, the sim corpus) stay where they are in the package.
 * (engine/base/package-root.ts does the same for the engine, which cannot import the harness.)
 */
function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = parent;
  }
  return dir;
}

/** The repository root, found from this file so the CLI works from any working directory, from the sources or compiled (dist/). */
export const REPO_ROOT = repoRoot();

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
