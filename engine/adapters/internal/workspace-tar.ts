import { randomBytes } from 'node:crypto';
import { copyFile, lstat, mkdir, readFile, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';

/** Who owns the entries a tar written here carries: the sandbox user, whatever we are. */
export interface TarOwner {
  uid: number;
  gid: number;
}

/**
 * A tar of everything under `root` (directories, regular files, symlinks as links, never
 * followed), names relative to `root`, every entry owned by `owner` so the sandbox user can
 * change what is copied in. Other file types (sockets, fifos, devices) are left out.
 */
export async function packDirectory(root: string, owner: TarOwner): Promise<Buffer> {
  const pack = tar.pack();
  const done = collect(pack);
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      const name = path.relative(root, full).split(path.sep).join('/');
      const stat = await lstat(full);
      const base = { name, mode: stat.mode & 0o777, mtime: stat.mtime, uid: owner.uid, gid: owner.gid };
      if (stat.isSymbolicLink()) await add(pack, { ...base, type: 'symlink', linkname: await readlink(full) });
      else if (stat.isDirectory()) {
        await add(pack, { ...base, type: 'directory' });
        await walk(full);
      } else if (stat.isFile()) await add(pack, { ...base, type: 'file' }, await readFile(full));
    }
  };
  await walk(root);
  pack.finalize();
  return done;
}

/** A tar holding these files (path relative to the workspace → content) and each of their parent directories once, all owned by `owner`. */
export async function packFiles(files: ReadonlyMap<string, string>, owner: TarOwner): Promise<Buffer> {
  const pack = tar.pack();
  const done = collect(pack);
  const dirs = new Set<string>();
  for (const [rel, content] of files) {
    const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
    for (let i = 1; i < parts.length; i++) {
      const dir = parts.slice(0, i).join('/');
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      await add(pack, { name: dir, type: 'directory', mode: 0o755, uid: owner.uid, gid: owner.gid });
    }
    await add(pack, { name: parts.join('/'), type: 'file', mode: 0o644, uid: owner.uid, gid: owner.gid }, Buffer.from(content, 'utf8'));
  }
  pack.finalize();
  return done;
}

/**
 * Make `dest` hold exactly what the tar stream holds below its first path component (Docker's
 * archive of `/workspace` names every entry `workspace/...`). The tree is unpacked into a
 * fresh sibling folder and swapped in, so files deleted inside the sandbox disappear here too.
 * The tar comes from a folder agent code wrote, so it is treated as hostile: names that leave
 * the folder are refused, links are recreated as links and never written through, and only
 * permission bits are kept (no setuid).
 */
export async function replaceFromTar(stream: Readable, dest: string): Promise<void> {
  const staging = `${dest}.sync-${randomBytes(4).toString('hex')}`;
  await mkdir(staging, { recursive: true });
  try {
    await unpack(stream, staging);
    const old = `${dest}.old-${randomBytes(4).toString('hex')}`;
    await rename(dest, old).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await rename(staging, dest);
    await rm(old, { recursive: true, force: true });
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function unpack(stream: Readable, root: string): Promise<void> {
  const extract = tar.extract();
  /** Directories this unpack made; a parent must be one of them, so nothing is written through a link. */
  const dirs = new Set<string>(['']);
  const files = new Set<string>();
  extract.on('entry', (header, body, next) => {
    const handle = async (): Promise<void> => {
      const rel = path.posix.normalize(header.name.split('/').slice(1).join('/')).replace(/\/+$/, '');
      if (rel === '' || rel === '.') return;
      if (rel.startsWith('../') || rel === '..' || path.posix.isAbsolute(rel)) throw new Error(`refused tar entry leaving the workspace: ${header.name}`);
      const parent = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
      if (!dirs.has(parent)) {
        // Docker lists a directory before its contents; a parent we did not make is a link or a file.
        if ((await lstat(path.join(root, parent)).catch(() => null)) !== null) throw new Error(`refused tar entry below a non-directory: ${header.name}`);
        await mkdir(path.join(root, parent), { recursive: true });
        for (let p = parent; p !== '.' && p !== ''; p = path.posix.dirname(p)) dirs.add(p);
      }
      const full = path.join(root, rel);
      const mode = (header.mode ?? 0o644) & 0o777;
      if (header.type === 'directory') {
        if (!dirs.has(rel)) await mkdir(full, { mode: mode | 0o700 });
        dirs.add(rel);
      } else if (header.type === 'symlink') {
        await symlink(header.linkname ?? '', full);
      } else if (header.type === 'file' || header.type === 'contiguous-file') {
        await writeFile(full, await drain(body), { mode: mode | 0o600 });
        files.add(rel);
        return;
      } else if (header.type === 'link') {
        const target = path.posix.normalize((header.linkname ?? '').split('/').slice(1).join('/'));
        if (!files.has(target)) throw new Error(`refused hard link to an unknown file: ${header.name}`);
        await copyFile(path.join(root, target), full);
        files.add(rel);
      }
      await drain(body);
    };
    handle().then(() => next(), (error: unknown) => extract.destroy(error as Error));
  });
  await new Promise<void>((resolve, reject) => {
    extract.once('finish', resolve);
    extract.once('error', reject);
    stream.once('error', reject);
    stream.pipe(extract);
  });
}

function add(pack: tar.Pack, header: tar.Headers, body?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    pack.entry(header, body ?? '', (error) => (error ? reject(error) : resolve()));
  });
}

function collect(stream: Readable): Promise<Buffer> {
  return drain(stream);
}

async function drain(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
