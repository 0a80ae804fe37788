import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';

const run = promisify(execFile);

/**
 * Which code recorded a journal: the git commit, and whether the working tree differed from
 * it. Uncommitted changes are pinned by a digest of what they are, so a resume on the same
 * commit with different edits is told apart from one with the same edits. Output folders
 * (`runs/`, the run's own folder) are left out: a sweep writing its results must not make
 * its own identity, or another concurrent sweep's, read as changed.
 */
export const CodeIdentity = z.discriminatedUnion('state', [
  z.strictObject({
    state: z.literal('git'),
    commit: z.string().regex(/^[0-9a-f]{40,64}$/),
    dirty: z.boolean(),
    /** sha256 of the uncommitted changes (tracked diff plus untracked files); null when clean. */
    changes: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
  }),
  z.strictObject({ state: z.literal('unknown'), reason: z.string() }),
]);
export type CodeIdentity = z.infer<typeof CodeIdentity>;

export interface CodeIdentityOptions {
  /** Folders whose contents never count as a change: every output folder. Default: `<repo>/runs`. */
  outputDirs?: readonly string[];
}

async function git(cwd: string, args: string[]): Promise<Buffer> {
  // Optional locks off: reading the identity must not rewrite the index under a concurrent git.
  const { stdout } = await run('git', args, { cwd, encoding: 'buffer', maxBuffer: 512 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } });
  return stdout;
}

/** The commit and dirty state of the checkout holding `repoRoot`; `unknown` (with why) outside git. */
export async function readCodeIdentity(repoRoot: string, options: CodeIdentityOptions = {}): Promise<CodeIdentity> {
  let top: string;
  let commit: string;
  try {
    top = (await git(repoRoot, ['rev-parse', '--show-toplevel'])).toString('utf8').trim();
    commit = (await git(repoRoot, ['rev-parse', 'HEAD'])).toString('utf8').trim();
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed' : `${repoRoot} is not a git checkout with a commit`;
    return { state: 'unknown', reason: why };
  }
  const real = await Promise.all((options.outputDirs ?? [path.join(repoRoot, 'runs')]).map((dir) => realpath(dir).catch(() => path.resolve(dir))));
  const excluded = real
    .map((dir) => path.relative(top, dir))
    // A folder outside the checkout cannot make it dirty; one equal to the checkout would exclude everything.
    .filter((rel) => rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel))
    .map((rel) => `:(exclude,top)${rel.split(path.sep).join('/')}`);
  const spec = ['--', ':(top)', ...excluded];
  const status = (await git(top, ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...spec])).toString('utf8');
  if (status === '') return { state: 'git', commit, dirty: false, changes: null };
  const hash = createHash('sha256');
  hash.update(await git(top, ['diff', 'HEAD', '--binary', '--no-ext-diff', '--no-textconv', ...spec]));
  const untracked = status
    .split('\0')
    .filter((entry) => entry.startsWith('?? '))
    .map((entry) => entry.slice(3))
    .sort();
  // A symbolic link is what it points at (a link to a folder cannot be read as a file).
  for (const rel of untracked) hash.update(`\0untracked ${rel}\0`).update(await untrackedContent(path.join(top, rel)));
  return { state: 'git', commit, dirty: true, changes: hash.digest('hex') };
}

async function untrackedContent(file: string): Promise<Buffer> {
  return (await lstat(file)).isSymbolicLink() ? Buffer.from(`symlink ${await readlink(file)}`) : readFile(file);
}
