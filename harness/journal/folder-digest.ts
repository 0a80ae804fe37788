import { createHash } from 'node:crypto';
import { lstat, readFile, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/**
 * What a folder held, as one sha256: the relative path, kind, executable bit and content of
 * every file below it, in a fixed order, so the same content gives the same digest on any
 * machine and at any location. A missing folder is its own value (`absent`), never an empty
 * digest: "there was no corpus" and "the corpus was empty" are different pins.
 */
export const FolderDigest = z.discriminatedUnion('state', [
  z.strictObject({ state: z.literal('present'), sha256: z.string().regex(/^[0-9a-f]{64}$/), files: z.int().nonnegative() }),
  z.strictObject({ state: z.literal('absent') }),
]);
export type FolderDigest = z.infer<typeof FolderDigest>;

/** Derived files that running the code leaves behind; they change nothing an agent or grader reads. */
const IGNORED = /(^|\/)(__pycache__\/|\.pytest_cache\/|\.DS_Store$)|\.py[co]$/;

async function entries(root: string, rel: string, out: string[]): Promise<void> {
  for (const entry of await readdir(path.join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!IGNORED.test(`${child}/`)) await entries(root, child, out);
    } else if (!IGNORED.test(child)) out.push(child);
  }
}

/** The digest of `dir`, or `{ state: 'absent' }` when there is nothing at that path. */
export async function digestFolder(dir: string): Promise<FolderDigest> {
  const top = await lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!top) return { state: 'absent' };
  if (!top.isDirectory()) throw new Error(`${dir} is not a folder; a pinned spec, oracle or corpus must be one`);
  const files: string[] = [];
  await entries(dir, '', files);
  // Sorted by code unit, not locale, so every machine agrees on the order.
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256');
  for (const rel of files) {
    const full = path.join(dir, rel);
    const info = await lstat(full);
    if (!info.isFile() && !info.isSymbolicLink()) throw new Error(`${full} is neither a file nor a link; a pinned folder holds only those`);
    // A link is pinned as where it points, never followed: a link out of the folder is not its content.
    const [kind, content] = info.isSymbolicLink() ? ['link', Buffer.from(await readlink(full))] : ['file', await readFile(full)];
    const exec = info.mode & 0o111 ? 'x' : '-';
    hash.update(`${kind} ${exec} ${JSON.stringify(rel)} ${content.length}\n`).update(content).update('\n');
  }
  return { state: 'present', sha256: hash.digest('hex'), files: files.length };
}
