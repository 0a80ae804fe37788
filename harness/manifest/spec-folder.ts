import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { HELD_OUT_MARKER } from '../paths.js';
import { TASK_FILE } from '../task/task-definition.js';

/** What a spec folder must hold: the text agents read and the requirements they are graded on. */
export const SPEC_FILES = ['SPEC.md', 'requirements.yaml'] as const;

/**
 * Most entries a spec folder may hold, searched for held-out material. A spec is a handful of
 * files; a folder with more is not one (a checkout's root, `/etc`), and searching it whole
 * would cost more than any answer is worth, so it is refused rather than half-searched.
 */
export const MAX_SPEC_ENTRIES = 2000;

/** The tasks found under a folder of specs (spec/): its subfolders that hold a task.yaml, sorted. */
export async function specTasks(specRoot: string): Promise<string[]> {
  const entries = await readdir(specRoot, { withFileTypes: true }).catch(() => []);
  const tasks: string[] = [];
  for (const e of entries) if (e.isDirectory() && (await exists(path.join(specRoot, e.name, TASK_FILE)))) tasks.push(e.name);
  return tasks.sort();
}

const exists = (file: string) => lstat(file).then(() => true, () => false);
const shown = (from: string, to: string) => path.relative(from, to) || '.';

/** The first folder from `dir` up to the root that is marked as held out, if any. */
async function markedAncestor(dir: string): Promise<string | undefined> {
  for (let current = dir; ; current = path.dirname(current)) {
    if (await exists(path.join(current, HELD_OUT_MARKER))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

type Walk = { marked: string } | { leaves: string; target: string } | { tooMany: true } | { clean: true };

/**
 * Searches below `root` (breadth first, links not followed) for a held-out marker or a link
 * that resolves outside `root`: either would put held-out material, or anything else on the
 * machine, in front of an agent as part of its spec.
 */
async function walk(root: string): Promise<Walk> {
  const queue = [root];
  let seen = 0;
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MAX_SPEC_ENTRIES) return { tooMany: true };
      const full = path.join(dir, entry.name);
      if (entry.name === HELD_OUT_MARKER) return { marked: dir };
      if (entry.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined);
        // A dangling link shows nothing; one that resolves outside the folder shows what it points at.
        if (target !== undefined && target !== root && !target.startsWith(root + path.sep)) return { leaves: full, target };
      } else if (entry.isDirectory()) queue.push(full);
    }
  }
  return { clean: true };
}

/**
 * Why `specDir` cannot be handed to agents as a spec, or undefined when it can. A spec folder
 * must exist, hold SPEC.md and requirements.yaml, and never resolve (after links) to, into or
 * above a folder of held-out material: each oracle folder carries a `.held-out` file, and any
 * folder with one, below or above the spec, refuses it. The cheap checks come first, so a
 * folder that is plainly not a spec (`/etc`) is refused for that before anything is searched.
 * `relativeTo` is the manifest's folder, which a missing folder is looked for against.
 */
export async function specFolderProblem(specDir: string, relativeTo: string): Promise<string | undefined> {
  const isDir = await stat(specDir).then((s) => s.isDirectory(), () => undefined);
  if (isDir !== true) {
    const what = isDir === false ? 'is a file, not a folder' : 'does not exist';
    return `${what} (looked at ${specDir}); spec is relative to the manifest's own folder, ${relativeTo}`;
  }
  const real = await realpath(specDir);
  const via = real === specDir ? '' : `(which resolves to ${real}) `;
  const marked = await markedAncestor(real);
  if (marked !== undefined) {
    const where = marked === real ? 'is' : `lies inside ${marked}, which is`;
    return `${via}${where} a folder of held-out material (it holds ${HELD_OUT_MARKER}); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never at an oracle`;
  }
  const missing: string[] = [];
  for (const name of SPEC_FILES) {
    if (!(await stat(path.join(real, name)).then((s) => s.isFile(), () => false))) missing.push(name);
  }
  if (missing.length > 0) {
    return `${via}has no ${missing.join(' and no ')}; a spec folder holds ${SPEC_FILES.join(' and ')}, so point spec at one (e.g. ../spec/<task> from manifests/)`;
  }
  const found = await walk(real);
  if ('marked' in found) {
    return `${via}holds a folder of held-out material, ${shown(real, found.marked)} (it holds ${HELD_OUT_MARKER}); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never above an oracle`;
  }
  if ('leaves' in found) {
    return `${via}holds a symbolic link that leaves it, ${shown(real, found.leaves)}; a spec folder is handed to agents whole, so copy the file in instead of linking to it`;
  }
  if ('tooMany' in found) {
    return `${via}holds more than ${MAX_SPEC_ENTRIES} entries, so it is not a spec folder; point spec at the folder of SPEC.md and requirements.yaml`;
  }
  return undefined;
}
