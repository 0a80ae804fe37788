import { createHash } from 'node:crypto';
import { chown, lstat, mkdir, readFile, readdir, readlink, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { WorkspacePathError } from '../../base/errors.js';
import { SNAPSHOT_IGNORES, type WorkspaceSnapshot } from '../../ports/sandbox.js';

/** Files above this size are fingerprinted by size and time instead of read whole. */
const HASHED_UP_TO = 8 * 1024 ** 2;

/** Resolve `rel` against `root`, refusing absolute paths and any `..` that leaves it. */
export function resolveInside(root: string, rel: string): string {
  if (path.isAbsolute(rel)) throw new WorkspacePathError(rel, 'absolute paths are not allowed');
  const full = path.resolve(root, rel);
  if (full !== root && !full.startsWith(root + path.sep)) {
    throw new WorkspacePathError(rel, 'it leaves the workspace');
  }
  return full;
}

/**
 * Host-side file access to a workspace whose contents were written by agent code. The
 * danger is a symlink the agent planted (`ln -s /etc/shadow x`): reading it from the host
 * would hand the agent host files. Every path is resolved and must stay inside the root.
 */
export class WorkspaceFs {
  constructor(
    readonly root: string,
    /** Owner to give created files so the sandbox user can edit them; `null` keeps ours. */
    private readonly owner: { uid: number; gid: number } | null,
  ) {}

  /** Resolves symlinks in the existing part of the path and re-checks containment. */
  private async contained(rel: string): Promise<string> {
    const full = resolveInside(this.root, rel);
    let probe = full;
    for (;;) {
      try {
        const real = await realpath(probe);
        const rootReal = await realpath(this.root);
        if (real !== rootReal && !real.startsWith(rootReal + path.sep)) {
          throw new WorkspacePathError(rel, 'a symlink in it points outside the workspace');
        }
        return full;
      } catch (error) {
        if (error instanceof WorkspacePathError) throw error;
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        const parent = path.dirname(probe);
        if (parent === probe) return full;
        probe = parent;
      }
    }
  }

  async read(rel: string): Promise<string> {
    return readFile(await this.contained(rel), 'utf8');
  }

  async write(rel: string, content: string): Promise<void> {
    const full = await this.contained(rel);
    const dir = path.dirname(full);
    const created = await mkdir(dir, { recursive: true });
    await writeFile(full, content);
    if (this.owner) {
      // mkdir returns the first directory it created; chown that chain so the sandbox user owns it.
      if (created) {
        for (let d = dir; d.length >= created.length; d = path.dirname(d)) {
          await chown(d, this.owner.uid, this.owner.gid);
          if (d === created) break;
        }
      }
      await chown(full, this.owner.uid, this.owner.gid);
    }
  }

  /** Content digests by path (symlinks by target, never followed; caches left out). */
  async snapshot(): Promise<WorkspaceSnapshot> {
    const out: WorkspaceSnapshot = {};
    for (const rel of await this.list()) {
      if (SNAPSHOT_IGNORES.test(rel)) continue;
      const full = path.join(this.root, rel);
      const stat = await lstat(full).catch(() => null);
      if (!stat) continue;
      if (stat.isSymbolicLink()) out[rel] = `link:${await readlink(full)}`;
      else if (stat.size > HASHED_UP_TO) out[rel] = `size:${stat.size}:${stat.mtimeMs}`;
      else out[rel] = createHash('sha1').update(await readFile(full)).digest('hex');
    }
    return out;
  }

  /** Sorted relative POSIX paths of regular files and symlinks; never follows a symlink. */
  async list(rel = '.', limit = 20_000): Promise<string[]> {
    const start = await this.contained(rel);
    const out: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
        throw error;
      }
      for (const entry of entries) {
        if (out.length >= limit) return;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else out.push(path.relative(this.root, full).split(path.sep).join('/'));
      }
    };
    const stat = await lstat(start).catch(() => null);
    if (stat?.isDirectory()) await walk(start);
    else if (stat) out.push(path.relative(this.root, start).split(path.sep).join('/'));
    return out.sort();
  }
}
