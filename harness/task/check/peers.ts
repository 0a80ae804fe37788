import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { z } from 'zod';
import { RdhError } from '../../../engine/index.js';
import { TaskInvalidError } from '../task-definition.js';

/**
 * Peers: real implementations nobody here wrote, graded by the battery beside the reference.
 * Each `peers/<name>.yaml` of a task's oracle folder is a recipe that builds a tree from
 * installed Debian packages (their pure-Python source, vendored under the tree, behind a small
 * entry point the task expects) and records the exact requirements the peer is expected to fail,
 * each with its reason. A peer whose grade moves (a requirement failed that is not recorded, or a
 * recorded one passed) fails the battery: the oracle changed what it measures of real programs.
 */

const RequirementId = z.string().regex(/^R\d{2}$/);

export const PeerRecipe = z.strictObject({
  description: z.string().min(1).describe('What the peer is, and which version Debian ships.'),
  packages: z
    .array(
      z.strictObject({
        name: z.string().regex(/^[a-z0-9][a-z0-9.+-]+$/).describe('The Debian package, as apt-get names it.'),
        modules: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).min(1).describe('Its top-level Python modules or packages to vendor.'),
      }),
    )
    .min(1),
  vendor: z.string().min(1).describe('The folder of the tree the modules are copied into (the entry point puts it on sys.path).'),
  entry_points: z.record(z.string().min(1), z.string()).describe('Tree path -> text: the small entry point the task expects.'),
  expected_failures: z
    .array(z.strictObject({ requirement: RequirementId, reason: z.string().min(10) }))
    .describe('Exactly the requirements the peer fails, each with why; recorded once, then held.'),
});
export type PeerRecipe = z.infer<typeof PeerRecipe>;

export interface Peer {
  name: string;
  recipe: PeerRecipe;
}

/** A Debian package a peer is built from is not installed: the battery cannot grade it, and says how to fix that. */
export class PeerPackageMissingError extends RdhError {
  readonly code = 'peer_package_missing';
}

/** The peers of a task (its oracle folder's peers/*.yaml), by name; none when there is no such folder. */
export async function loadPeers(oracleDir: string, requirements: readonly string[]): Promise<Peer[]> {
  const dir = path.join(oracleDir, 'peers');
  const files = await readdir(dir).then(
    (names) => names.filter((n) => n.endsWith('.yaml')).sort(),
    () => [] as string[],
  );
  const peers: Peer[] = [];
  for (const file of files) {
    const parsed = PeerRecipe.safeParse(parse(await readFile(path.join(dir, file), 'utf8')));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new TaskInvalidError(`${path.join(dir, file)}: ${issue.path.join('.')}: ${issue.message}`);
    }
    const unknown = parsed.data.expected_failures.map((f) => f.requirement).filter((r) => !requirements.includes(r));
    if (unknown.length) throw new TaskInvalidError(`${path.join(dir, file)}: expected_failures: ${unknown.join(', ')} not a requirement of the spec`);
    peers.push({ name: file.replace(/\.yaml$/, ''), recipe: parsed.data });
  }
  return peers;
}

const run = promisify(execFile);

/** The files a Debian package installed (`dpkg -L`), or the error that names the package and the apt command. */
export async function packageFiles(pkg: string, peer: string): Promise<string[]> {
  const missing = () =>
    new PeerPackageMissingError(`peer ${peer}: the Debian package ${pkg} is not installed; install it with: apt-get install -y ${pkg}`);
  const status = await run('dpkg-query', ['-W', '-f=${Status}', pkg]).then(
    (r) => r.stdout,
    () => '',
  );
  if (!status.includes('install ok installed')) throw missing();
  const { stdout } = await run('dpkg', ['-L', pkg]).catch(() => {
    throw missing();
  });
  return stdout.split('\n').filter(Boolean);
}

/** The installed .py files of `module` among a package's files, as [absolute path, path below the module's site folder]. */
export function moduleSources(files: readonly string[], module: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const file of files) {
    const m = /^\/usr\/lib\/python3(?:\.\d+)?\/(?:dist|site)-packages\/(.+\.py)$/.exec(file);
    if (!m) continue;
    const rel = m[1]!;
    if (rel === `${module}.py` || rel.startsWith(`${module}/`)) out.push([file, rel]);
  }
  return out;
}

/** Builds the peer's tree at `at`: every module's source vendored, then the entry points. */
export async function buildPeerTree(peer: Peer, at: string): Promise<string> {
  for (const pkg of peer.recipe.packages) {
    const files = await packageFiles(pkg.name, peer.name);
    for (const module of pkg.modules) {
      const sources = moduleSources(files, module);
      if (!sources.length) throw new PeerPackageMissingError(`peer ${peer.name}: the Debian package ${pkg.name} installs no Python module ${module}; reinstall it with: apt-get install --reinstall -y ${pkg.name}`);
      for (const [from, rel] of sources) {
        const to = path.join(at, peer.recipe.vendor, rel);
        await mkdir(path.dirname(to), { recursive: true });
        await copyFile(from, to);
      }
    }
  }
  for (const [rel, text] of Object.entries(peer.recipe.entry_points)) {
    await mkdir(path.dirname(path.join(at, rel)), { recursive: true });
    await writeFile(path.join(at, rel), text);
  }
  return at;
}
