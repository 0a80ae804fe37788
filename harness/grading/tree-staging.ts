import { constants, createWriteStream } from 'node:fs';
import type { Dirent } from 'node:fs';
import { lstat, mkdir, open, opendir, readlink, symlink } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

/**
 * Limits on a tree handed to grading. A tree past them is not graded at all: it scores 0 as
 * undeliverable (never an error and never a refusal, which a tree must not be able to
 * choose). No deliverable of a few dozen source files comes near them.
 */
export const TREE_LIMITS = {
  /** Directory entries of every kind, counted as the walk meets them. Default 20 000. */
  entries: 20_000,
  /** Bytes of regular files. Default 256 MiB. */
  bytes: 256 * 1024 * 1024,
  /** Bytes of a path relative to the tree root; deeper entries are skipped. Default 1024. */
  pathBytes: 1024,
} as const;
export type TreeLimits = { [K in keyof typeof TREE_LIMITS]: number };

/** Why an entry of the tree was left out of the staged copy. */
export type SkipReason =
  | 'link leaves the tree'
  | 'link into the scaffolding'
  | 'dangling link'
  | 'link loop'
  | 'not a file, folder or link'
  | 'name is not UTF-8'
  | 'path too long'
  | 'unreadable';

export interface StagedTree {
  /** Entries left out, with why; at most MAX_NOTES are listed, `skippedCount` counts all. */
  skipped: Array<{ path: string; why: SkipReason }>;
  skippedCount: number;
  /** Set when the tree is past a limit: nothing was staged and the tree scores 0. */
  undeliverable: string | null;
}

const MAX_NOTES = 50;
const MAX_LINK_HOPS = 40;
const utf8 = new TextDecoder('utf-8', { fatal: true });

class PastLimit extends Error {}

export interface StageOptions {
  /**
   * Names of entries at the tree root that are not the deliverable (the engine's scaffolding,
   * WORKSPACE_SCAFFOLDING): never walked, counted against the limits or staged. A link of the
   * deliverable that leads into one is left out and noted. Default: none.
   */
  exclude?: readonly string[];
}

/**
 * Copies `source` to `dest` for grading. Regular files and folders are copied; a link is
 * kept only when it resolves, inside the tree, to an entry that is staged, and it is then
 * re-made pointing there by a relative path, so nothing that follows a link in the staged
 * copy can leave it. Every other link (absolute, climbing above the root, dangling, a loop),
 * every FIFO, socket or device, every name that is not UTF-8 and every over-long path is
 * left out and noted. Stale bytecode (`__pycache__`) is dropped silently. The source is
 * read with O_NOFOLLOW, so no link of the tree is ever followed while copying. Root entries
 * named in `options.exclude` are not part of the copy at all (see StageOptions).
 */
export async function stageTree(source: string, dest: string, limits: TreeLimits = TREE_LIMITS, options: StageOptions = {}): Promise<StagedTree> {
  const excluded = new Set(options.exclude ?? []);
  const out: StagedTree = { skipped: [], skippedCount: 0, undeliverable: null };
  const skip = (rel: string, why: SkipReason) => {
    out.skippedCount++;
    if (out.skipped.length < MAX_NOTES) out.skipped.push({ path: printable(rel), why });
  };
  const kinds = new Map<string, 'file' | 'dir'>([['', 'dir']]);
  const links = new Map<string, string>();
  const files: string[] = [];
  let entries = 0;
  let bytes = 0;

  async function walk(rel: string): Promise<void> {
    // Streamed, so a folder of millions of entries is read only up to the limit.
    let dir;
    try {
      dir = await opendir(path.join(source, rel), { encoding: 'buffer' as BufferEncoding, bufferSize: 256 });
    } catch {
      skip(rel, 'unreadable');
      return;
    }
    for await (const entry of dir) {
      const d = entry as unknown as Dirent<Buffer>;
      if (rel === '' && excluded.has(d.name.toString('latin1'))) continue;
      if (++entries > limits.entries) throw new PastLimit(`the tree has more than ${limits.entries} entries`);
      let name: string;
      try {
        name = utf8.decode(d.name);
      } catch {
        skip(path.join(rel, escapeBytes(d.name)), 'name is not UTF-8');
        continue;
      }
      const child = rel ? `${rel}/${name}` : name;
      if (Buffer.byteLength(child) > limits.pathBytes) {
        skip(child, 'path too long');
        continue;
      }
      if (d.isDirectory()) {
        if (name === '__pycache__') continue;
        kinds.set(child, 'dir');
        await walk(child);
      } else if (d.isFile()) {
        const size = await lstat(path.join(source, child)).then((s) => s.size, () => -1);
        if (size < 0) {
          skip(child, 'unreadable');
          continue;
        }
        bytes += size;
        if (bytes > limits.bytes) throw new PastLimit(`the tree holds more than ${limits.bytes} bytes`);
        kinds.set(child, 'file');
        files.push(child);
      } else if (d.isSymbolicLink()) {
        const target = await readlink(path.join(source, child)).catch(() => null);
        if (target === null) skip(child, 'unreadable');
        else links.set(child, target);
      } else {
        skip(child, 'not a file, folder or link');
      }
    }
  }

  try {
    await walk('');
  } catch (error) {
    if (!(error instanceof PastLimit)) throw error;
    return { skipped: [], skippedCount: 0, undeliverable: error.message };
  }

  for (const [rel, kind] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
    if (kind === 'dir') await mkdir(path.join(dest, rel), { recursive: true });
  }
  for (const rel of files) {
    if (!(await copyNoFollow(path.join(source, rel), path.join(dest, rel)))) skip(rel, 'unreadable');
  }
  for (const [rel, target] of links) {
    const resolved = resolveInside(rel, target, { root: source, links, kinds });
    if (typeof resolved !== 'string') {
      skip(rel, resolved.why === 'dangling link' && intoExcluded(source, rel, target, excluded) ? 'link into the scaffolding' : resolved.why);
      continue;
    }
    await symlink(path.relative(path.dirname(path.join(dest, rel)), path.join(dest, resolved)) || '.', path.join(dest, rel));
  }
  // The walk meets entries in the order the file system lists them; a report lists them by path.
  out.skipped.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return out;
}

/**
 * Where a link of the tree leads, as a path relative to the tree root, resolved the way
 * the kernel would (component by component, through other links of the tree) but without
 * touching the file system: only what the walk recorded. Anything that leaves the root,
 * dangles or loops is refused with its reason.
 */
export function resolveInside(
  linkRel: string,
  target: string,
  tree: { root: string; links: Map<string, string>; kinds: Map<string, 'file' | 'dir'> },
): string | { why: SkipReason } {
  let hops = 0;
  const expand = (base: string[], text: string): string[] | { why: SkipReason } => {
    if (++hops > MAX_LINK_HOPS) return { why: 'link loop' };
    let stack = [...base];
    let rest = text;
    if (path.isAbsolute(text)) {
      const rootRel = path.relative(tree.root, path.normalize(text));
      if (rootRel.startsWith('..') || path.isAbsolute(rootRel)) return { why: 'link leaves the tree' };
      stack = [];
      rest = rootRel;
    }
    for (const part of rest.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (!stack.length) return { why: 'link leaves the tree' };
        stack.pop();
        continue;
      }
      stack.push(part);
      const here = stack.join('/');
      const next = tree.links.get(here);
      if (next !== undefined) {
        const resolved = expand(stack.slice(0, -1), next);
        if (!Array.isArray(resolved)) return resolved;
        stack = resolved;
      } else if (!tree.kinds.has(here)) {
        return { why: 'dangling link' };
      }
    }
    return stack;
  };
  const parts = linkRel.split('/');
  const resolved = expand(parts.slice(0, -1), target);
  if (!Array.isArray(resolved)) return resolved;
  const rel = resolved.join('/');
  return tree.kinds.has(rel) ? rel : { why: 'dangling link' };
}

/** Whether a link's target, read literally (links on the way not followed), names an excluded root entry. */
function intoExcluded(root: string, linkRel: string, target: string, excluded: ReadonlySet<string>): boolean {
  if (!excluded.size) return false;
  const abs = path.isAbsolute(target) ? path.normalize(target) : path.join(root, path.dirname(linkRel), target);
  const rel = path.relative(root, abs);
  return !rel.startsWith('..') && !path.isAbsolute(rel) && excluded.has(rel.split(path.sep)[0] ?? '');
}

async function copyNoFollow(from: string, to: string): Promise<boolean> {
  const handle = await open(from, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return false;
  try {
    if (!(await handle.stat()).isFile()) return false;
    await pipeline(handle.createReadStream({ autoClose: false }), createWriteStream(to, { flags: 'wx', mode: 0o644 }));
    return true;
  } catch {
    return false;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function escapeBytes(name: Buffer): string {
  return [...name].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
}

/** A path as it may appear in a report: control characters escaped, length bounded. */
function printable(rel: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = rel.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean;
}
