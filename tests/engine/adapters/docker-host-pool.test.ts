import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DockerHostPool,
  DockerHostSpec,
  NoSandboxHostError,
  SANDBOX_LABELS,
  openDockerHostPool,
  withHostRetry,
  type Sandbox,
} from '../../../engine/index.js';
import { sandboxImageTag } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { startSecondDockerd, type SecondDockerd } from '../../support/second-dockerd.js';

const RUN = `vitest-pool-${process.pid}`;
const FIRST = DockerHostSpec.parse({ url: 'unix:///var/run/docker.sock', capacity: 2 });
const ITEMS = Array.from({ length: 10 }, (_, i) => i);
/**
 * What one host answers for every item: each result is a function of its input alone (work()
 * hashes `item N`), so the sweep over two hosts, one of them lost mid-run, must come to exactly
 * this, with nothing missing, doubled or changed.
 */
const ONE_HOST_RESULTS = ITEMS.map((i) => `${i}:${createHash('sha256').update(`item ${i}\n`).digest('hex').slice(0, 16)}`).sort();

/** One unit of sandbox work with a result that depends only on its input. */
async function work(pool: DockerHostPool, root: string, item: number, onPlaced: (host: string) => void): Promise<string> {
  const box = (await pool.create({ workspaceDir: await mkdtemp(path.join(root, `w${item}-`)), runId: RUN, purpose: `item-${item}` })) as Sandbox & { hostUrl: string };
  try {
    onPlaced(box.hostUrl);
    await box.writeFile('in.txt', `item ${item}\n`);
    const ran = await box.exec('python3 -c "import hashlib; print(hashlib.sha256(open(\'in.txt\',\'rb\').read()).hexdigest()[:16])" > out.txt && sleep 1.5 && cat out.txt');
    if (ran.exitCode !== 0) throw new Error(`item ${item} failed: ${ran.stderr}`);
    return `${item}:${(await box.readFile('out.txt')).trim()}`;
  } finally {
    await box.dispose();
  }
}

/** Runs every item, `concurrency` at a time, each retried elsewhere if its host is lost. */
async function sweep(pool: DockerHostPool, root: string, concurrency: number, hooks: { placed?: (item: number, host: string, attempt: number) => void } = {}) {
  const queue = [...ITEMS];
  const results: string[] = [];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
        const n = item;
        results.push(await withHostRetry(pool, (attempt) => work(pool, root, n, (host) => hooks.placed?.(n, host, attempt))));
      }
    }),
  );
  return results.sort();
}

/**
 * One second daemon serves both cases: the first finds it without the image and loads it; the
 * second restarts it after the first case killed it, on the same data-root, so the image is
 * already there. Starting a daemon and copying the image onto it took a quarter of this file.
 */
let second: SecondDockerd;
let loaded = false;

beforeAll(async () => {
  if (HAS_DOCKER) second = await startSecondDockerd();
}, 60_000);

afterAll(async () => {
  await second?.cleanup();
}, 60_000);

// Killed: the lost host refuses connections. Hung: it accepts and never answers, so only the
// pool's health pings can tell, and work waiting on it must be released, not left to hang.
describe.skipIf(!HAS_DOCKER).each([
  ['killed', 'SIGKILL'],
  ['hung', 'SIGSTOP'],
] as const)('a sweep over two Docker daemons, the second %s mid-run', (_how, signal) => {
  let root: string;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'rdh-pool-'));
    // Lost by the case before: started again on the same data-root, the image still there.
    if (loaded) {
      await second.stop();
      await second.restart();
    }
  }, 60_000);

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    const left = await new Docker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABELS.run}=${RUN}`] } });
    expect(left).toEqual([]);
  }, 60_000);

  it('loads the image onto the new host (or finds it there), spreads work over both, drains the lost one and finishes on the first with the one-host results', async () => {
    const secondSpec = DockerHostSpec.parse({ url: second.tcpUrl, capacity: 2, tls: second.tls });
    const held = () => new Docker({ socketPath: second.socket }).getImage(sandboxImageTag()).inspect().then(() => true, () => false);
    expect(await held()).toBe(loaded);

    const { pool, preflight } = await openDockerHostPool({ hosts: [FIRST, secondSpec], image: sandboxImageTag(), healthIntervalMs: 500, pingTimeoutMs: 2000 });
    expect(preflight.map((p) => [p.reachable, p.image, p.transport])).toEqual([
      [true, 'present', 'bind'],
      [true, loaded ? 'present' : 'loaded', 'archive'],
    ]);
    loaded = true;
    // The copy went through save/load over TLS; the unix socket of the same daemon sees it.
    expect(await held()).toBe(true);

    const placements: Array<{ item: number; host: string; attempt: number; secondDrained: boolean }> = [];
    let killedAt = -1;
    const results = await sweep(pool, root, 4, {
      placed(item, host, attempt) {
        // Whether the pool had drained the second host when it placed this: the kill lands 300 ms
        // after it is asked for and the pool learns of it later still, so placements in between may
        // still go to the second host, and must then be retried on the first.
        const secondDrained = pool.status().find((s) => s.url === second.tcpUrl)?.drained ?? false;
        placements.push({ item, host, attempt, secondDrained });
        // Kill the second daemon once it has work in flight and has finished some.
        const onSecond = placements.filter((p) => p.host === second.tcpUrl).length;
        if (killedAt < 0 && host === second.tcpUrl && onSecond >= 3) {
          killedAt = placements.length;
          setTimeout(() => second.kill(signal), 300);
        }
      },
    });

    const status = pool.status();
    expect(status.map((s) => [s.url, s.drained])).toEqual([
      [FIRST.url, false],
      [second.tcpUrl, true],
    ]);
    expect(status.every((s) => s.created > 0)).toBe(true);
    const retried = placements.filter((p) => p.attempt > 1);
    expect(retried.length).toBeGreaterThan(0);
    expect(retried.every((p) => p.host === FIRST.url)).toBe(true);
    // Once drained, the second host takes nothing; and it was drained before the sweep ended.
    expect(placements.filter((p) => p.secondDrained).length).toBeGreaterThan(0);
    expect(placements.filter((p) => p.secondDrained && p.host !== FIRST.url)).toEqual([]);
    pool.close();

    expect(results).toEqual(ONE_HOST_RESULTS);

    // With no host answering, the pool says so and names each host's problem.
    const deadOnly = new DockerHostPool({ hosts: [secondSpec], image: sandboxImageTag(), pingTimeoutMs: 1000 });
    await expect(deadOnly.create({ workspaceDir: path.join(root, 'none'), runId: RUN })).rejects.toThrow(NoSandboxHostError);
    await expect(openDockerHostPool({ hosts: [secondSpec], image: sandboxImageTag(), pingTimeoutMs: 1000 })).rejects.toThrowError(
      new RegExp(`^no Docker host can run sandboxes: ${second.tcpUrl}: no answer within 1000 ms`),
    );
  }, 240_000);
});
