import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Docker from 'dockerode';
import { z } from 'zod';
import { RdhError, assertDockerReachable } from '../../engine/index.js';
import { digestOf } from '../internal/canonical-json.js';

/**
 * What the sandbox image is made of. Agents and the oracle need Python 3 and pytest, and
 * nothing else: no compilers, no network tools. The tag is a digest of this object, so a
 * changed recipe yields a new tag and an unchanged one is never rebuilt.
 */
export const SANDBOX_RECIPE = {
  /** Bump when the build steps change in a way the fields below do not show. */
  revision: 1,
  suite: 'bookworm',
  packages: ['python3', 'python3-pytest'],
  user: { name: 'agent', uid: 1000, gid: 1000 },
  env: { LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1', HOME: '/tmp' },
} as const;

export const SANDBOX_REPOSITORY = 'rdh-sandbox';
const RECIPE_LABEL = 'io.rdh.recipe';
const METHOD_LABEL = 'io.rdh.build-method';

export const BuildMethod = z.enum(['auto', 'dockerfile', 'debootstrap']);
export type BuildMethod = z.infer<typeof BuildMethod>;

export function recipeDigest(recipe: unknown = SANDBOX_RECIPE): string {
  return digestOf(recipe).slice(0, 12);
}

/** The tag the current recipe builds: `rdh-sandbox:<12 hex digits>`. */
export function sandboxImageTag(recipe: unknown = SANDBOX_RECIPE): string {
  return `${SANDBOX_REPOSITORY}:${recipeDigest(recipe)}`;
}

export function dockerfileFor(recipe = SANDBOX_RECIPE): string {
  const { user } = recipe;
  return [
    `FROM debian:${recipe.suite}-slim`,
    `RUN apt-get update && apt-get install -y --no-install-recommends ${recipe.packages.join(' ')} && rm -rf /var/lib/apt/lists/*`,
    `RUN groupadd -g ${user.gid} ${user.name} && useradd -u ${user.uid} -g ${user.gid} -M -d /tmp -s /bin/sh ${user.name}`,
    ...Object.entries(recipe.env).map(([k, v]) => `ENV ${k}=${v}`),
    `LABEL ${RECIPE_LABEL}=${recipeDigest(recipe)}`,
    '',
  ].join('\n');
}

export class SandboxBuildError extends RdhError {
  readonly code = 'sandbox_build_failed';
}

export interface BuildOptions {
  docker: Docker;
  /** `auto` uses a Dockerfile when the base image can be had from a registry, else debootstrap. Default `auto`. */
  method?: BuildMethod;
  /** Rebuild even when the tag exists. Default false. */
  force?: boolean;
  /** Progress lines for a person. Default: discarded. */
  log?: (line: string) => void;
}

export interface BuildResult {
  tag: string;
  method: 'dockerfile' | 'debootstrap' | 'existing';
  seconds: number;
}

export async function buildSandboxImage(options: BuildOptions): Promise<BuildResult> {
  const { docker } = options;
  const log = options.log ?? (() => undefined);
  const tag = sandboxImageTag();
  const started = performance.now();
  await assertDockerReachable(docker);
  if (!options.force && (await imagePresent(docker, tag))) {
    log(`${tag} is present and current; nothing to build`);
    return { tag, method: 'existing', seconds: 0 };
  }
  let method = options.method ?? 'auto';
  if (method === 'auto') {
    method = (await baseImageObtainable(docker, log)) ? 'dockerfile' : 'debootstrap';
  }
  log(`building ${tag} with ${method}`);
  if (method === 'dockerfile') await buildWithDockerfile(docker, tag, log);
  else await buildWithDebootstrap(docker, tag, log);
  return { tag, method, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

async function imagePresent(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch {
    return false;
  }
}

/** A registry is usable when the base image is already here or a pull of it succeeds quickly. */
async function baseImageObtainable(docker: Docker, log: (line: string) => void): Promise<boolean> {
  const base = `debian:${SANDBOX_RECIPE.suite}-slim`;
  if (await imagePresent(docker, base)) return true;
  log(`probing the registry for ${base} (20 s at most)`);
  try {
    const stream = await withTimeout(docker.pull(base), 20_000);
    await withTimeout(followProgress(docker, stream), 300_000);
    return true;
  } catch (error) {
    log(`no registry: ${(error as Error).message.split('\n')[0]}; falling back to debootstrap`);
    return false;
  }
}

async function buildWithDockerfile(docker: Docker, tag: string, log: (line: string) => void): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-dockerfile-'));
  try {
    await writeFile(path.join(dir, 'Dockerfile'), dockerfileFor());
    const stream = await docker.buildImage({ context: dir, src: ['Dockerfile'] }, {
      t: tag,
      labels: { [METHOD_LABEL]: 'dockerfile' },
    });
    await followProgress(docker, stream, log);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function buildWithDebootstrap(docker: Docker, tag: string, log: (line: string) => void): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new SandboxBuildError(
      'debootstrap needs root and no registry was reachable; run `harness sandbox build` as root, or on a machine with a registry use `--method dockerfile`.',
    );
  }
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-rootfs-'));
  try {
    const { suite, packages, user, env } = SANDBOX_RECIPE;
    // No mirror argument: debootstrap's own default mirror is the one our machines reach.
    await run('debootstrap', ['--variant=minbase', `--include=${packages.join(',')}`, suite, root], log);
    await appendFile(path.join(root, 'etc/passwd'), `${user.name}:x:${user.uid}:${user.gid}::/tmp:/bin/sh\n`);
    await appendFile(path.join(root, 'etc/group'), `${user.name}:x:${user.gid}:\n`);
    await rm(path.join(root, 'var/cache/apt/archives'), { recursive: true, force: true });
    await rm(path.join(root, 'var/lib/apt/lists'), { recursive: true, force: true });
    log('importing the root filesystem into Docker');
    const tar = spawn('tar', ['--numeric-owner', '-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [repo, version] = tag.split(':');
    const stream = await docker.importImage(tar.stdout, {
      repo,
      tag: version,
      changes: [
        ...Object.entries(env).map(([k, v]) => `ENV ${k}=${v}`),
        `LABEL ${RECIPE_LABEL}=${recipeDigest()} ${METHOD_LABEL}=debootstrap`,
        'CMD ["sleep", "infinity"]',
      ],
    } as Record<string, unknown>);
    await followProgress(docker, stream, log);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const onData = (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-4000);
      for (const line of chunk.toString().split('\n')) if (/^I: (Retrieving Packages|Installing core|Base system)/.test(line)) log(line);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (cause) =>
      reject(new SandboxBuildError(`${cmd} could not start (${cause.message}); install it (apt-get install ${cmd}).`, { cause })),
    );
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new SandboxBuildError(`${cmd} exited ${code}: ${tail.trim().split('\n').slice(-3).join(' | ')}`)),
    );
  });
}

function followProgress(docker: Docker, stream: NodeJS.ReadableStream, log?: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (error: Error | null, events: Array<{ error?: string; errorDetail?: { message?: string } }>) => {
        const failed = error?.message ?? events?.find((e) => e.error)?.error;
        if (failed) reject(new SandboxBuildError(`image build failed: ${failed}`));
        else resolve();
      },
      (event: { stream?: string }) => {
        const line = event.stream?.trim();
        if (line && log) log(line);
      },
    );
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (v) => (clearTimeout(timer), resolve(v)),
      (e) => (clearTimeout(timer), reject(e)),
    );
  });
}

export const ImageStatus = z.object({
  tag: z.string(),
  present: z.boolean(),
  method: z.string().nullable(),
  sizeMb: z.number().nullable(),
  created: z.string().nullable(),
  /** Other rdh-sandbox tags on the daemon: built from an older recipe. */
  stale: z.array(z.string()),
});
export type ImageStatus = z.infer<typeof ImageStatus>;

export async function sandboxImageStatus(docker: Docker): Promise<ImageStatus> {
  await assertDockerReachable(docker);
  const tag = sandboxImageTag();
  const images = await docker.listImages({ filters: { reference: [SANDBOX_REPOSITORY] } });
  const stale = images.flatMap((i) => i.RepoTags ?? []).filter((t) => t !== tag).sort();
  try {
    const info = await docker.getImage(tag).inspect();
    return {
      tag,
      present: true,
      method: info.Config?.Labels?.[METHOD_LABEL] ?? null,
      sizeMb: Math.round(info.Size / 1e6),
      created: info.Created,
      stale,
    };
  } catch {
    return { tag, present: false, method: null, sizeMb: null, created: null, stale };
  }
}
