import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from '../paths.js';
import { TASK_FILE } from './task-definition.js';

/** The tasks under spec/: its folders that hold a task.yaml, sorted. */
export async function listTasks(specRoot = path.join(REPO_ROOT, 'spec')): Promise<string[]> {
  const entries = await readdir(specRoot, { withFileTypes: true }).catch(() => []);
  const found = await Promise.all(
    entries.filter((e) => e.isDirectory()).map(async (e) => ((await stat(path.join(specRoot, e.name, TASK_FILE)).then((s) => s.isFile(), () => false)) ? e.name : null)),
  );
  return found.filter((t): t is string => t !== null).sort();
}
