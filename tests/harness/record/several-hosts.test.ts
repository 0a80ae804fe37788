import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_LABELS, stableJson } from '../../../engine/index.js';
import { readSweepJournal, sandboxImageTag } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { startSecondDockerd, type SecondDockerd } from '../../support/second-dockerd.js';
import { journalRunId, recordInChild, transcribedCalls, type Invocation } from './record-child.js';

/**
 * Losing a Docker host for real, in child processes running `harness record` (cap 1 of the
 * SIMULATED record sweep, sandboxes in Docker, a fake grade), against a PRIVATE second dockerd
 * the test starts once for the whole file; the daemon every other test uses is never touched.
 * - `--docker-host`: one sweep spread over the machine's daemon (unix socket, bind transport)
 *   and the private one (tcp with mutual TLS, archive transport, the image loaded onto it by the
 *   preflight), which the test SIGKILLs while it runs a sandbox of the sweep; beside it the same
 *   sweep on the machine's daemon alone. Then the private daemon as the only host, killed.
 * - DOCKER_HOST: a sweep whose only daemon is the private one, stopped mid-sweep as an operator
 *   would, then started again on the same data-root for the resume.
 * One daemon for both (they were two files): the second file's own start, image copy and cleanup
 * were about a third of its 37-41 s.
 */

const FIRST = 'unix:///var/run/docker.sock,capacity=2';

const recordChild = (dir: string, countFile: string, dockerHost: string[]) =>
  recordInChild(dir, { flags: { depths: [1], ...(dockerHost.length ? { dockerHost } : {}) }, options: { dockerSandboxes: true, countFile } });

/** The final outcome of every cell, canonically: the latest cell_finished of each. */
async function finalOutcomes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events) if (e.type === 'cell_finished') out[e.cellId] = stableJson(e.outcome);
  return out;
}

/** `host URL: N sandboxes[, drained (...)]`, the lines the sweep prints at its end. */
function hostLines(output: string): Array<{ url: string; created: number; drained: boolean }> {
  return [...output.matchAll(/^host (\S+): (\d+) sandbox(?:es)?(, drained)?/gm)].map((m) => ({ url: m[1]!, created: Number(m[2]), drained: Boolean(m[3]) }));
}

let daemon: SecondDockerd;
let tmp: string;

beforeAll(async () => {
  if (!HAS_DOCKER) return;
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-hosts-'));
  daemon = await startSecondDockerd();
}, 300_000);

afterAll(async () => {
  await daemon?.cleanup();
  if (tmp) await rm(tmp, { recursive: true, force: true });
}, 120_000);

describe.skipIf(!HAS_DOCKER)('harness record over two Docker hosts, the second killed mid-sweep', () => {

  it('uses both hosts, re-runs the lost host’s pair on the first without paying a completed call twice, and ends with the one-host results', async () => {
    const runId = `spread-${process.pid}`;
    const dir = path.join(tmp, runId);
    const second = `${daemon.tcpUrl},capacity=2,ca=${daemon.tls.ca},cert=${daemon.tls.cert},key=${daemon.tls.key}`;
    const oneHost = recordChild(path.join(tmp, 'one-host'), path.join(tmp, 'one-host.calls'), []);
    const spread = recordChild(dir, path.join(tmp, 'spread.calls'), [FIRST, second]);
    let ended: Invocation | undefined;
    void spread.then((r) => (ended = r));

    // Mid-sweep: the second daemon has been running a sandbox of this sweep for a while (past its
    // creation, which the pool would simply place elsewhere), so work in flight is lost.
    const d2 = new Docker({ socketPath: daemon.socket });
    // Containers carry the run id the journal pins, once the header is written.
    const onSecond = async () => {
      const id = await journalRunId(dir);
      return id ? (await d2.listContainers({ filters: { label: [`${SANDBOX_LABELS.run}=${id}`] } }).catch(() => [])).length : 0;
    };
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    for (;;) {
      while (!ended && (await onSecond()) === 0) await sleep(200);
      if (ended) break;
      await sleep(2000);
      if ((await onSecond()) > 0) break;
    }
    expect(ended, 'the sweep ended before the second daemon ran any of its sandboxes').toBeUndefined();
    daemon.kill('SIGKILL');

    const [one, got] = await Promise.all([oneHost, spread]);
    expect(one.exit, one.output).toBe(0);
    expect(got.exit, got.output).toBe(0);
    // The preflight loaded the image onto the second host, which works over tcp + TLS without a shared folder.
    expect(got.output).toContain(`host ${daemon.tcpUrl}: image loaded, archive transport`);
    expect(got.output).toContain('host unix:///var/run/docker.sock: image present, bind transport');
    // Both hosts ran sandboxes; the second was drained, and the pair re-run on the first.
    const hosts = hostLines(got.output);
    expect(hosts.map((h) => h.url)).toEqual(['unix:///var/run/docker.sock', daemon.tcpUrl]);
    expect(hosts[0]!.created).toBeGreaterThan(0);
    expect(hosts[1]!.created).toBeGreaterThan(0);
    expect(hosts.map((h) => h.drained)).toEqual([false, true]);
    expect(got.output).toContain('re-running cap1-rep1-gated, cap1-rep1-ungated on the hosts left');
    // The loss is told in the lost host's own words, never as the environment's daemon.
    expect(got.output.split('\n').filter((l) => l.includes('drained')).join('\n')).not.toContain('/var/run/docker.sock');
    const events = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
    expect(events.filter((e) => e.type === 'cell_started').length).toBe(4);
    expect(events.some((e) => e.type === 'session_started' && e.reopened)).toBe(true);
    // The journal says why the pair ran twice, in the lost host's words.
    const lost = events.filter((e) => e.type === 'sandbox_host_lost');
    expect(lost).toMatchObject([{ cellIds: ['cap1-rep1-gated', 'cap1-rep1-ungated'], rerun: 1 }]);
    expect(lost[0]!.type === 'sandbox_host_lost' && lost[0]!.detail).toContain(daemon.tcpUrl);
    expect(got.output).toContain('hosts: 2 answering, capacity 4 in all');

    // No completed model call was made twice: the re-run answered them from the transcripts.
    expect(got.calls.length).toBe(new Set(got.calls).size);
    expect(one.calls.length).toBe(new Set(one.calls).size);
    // The results equal the one-host run's, canonically.
    expect(await finalOutcomes(dir)).toEqual(await finalOutcomes(path.join(tmp, 'one-host')));
    expect(Object.values(await finalOutcomes(dir)).every((o) => JSON.parse(o).status === 'measured')).toBe(true);
  }, 900_000);

  it('stops with the fatal outcome (exit 3, the journal intact) when its only host stops answering mid-sweep', async () => {
    // Killed by the test above, or (run alone) still up: either way a fresh start on the same data-root.
    await daemon.stop();
    await daemon.restart();
    const runId = `alone-${process.pid}`;
    const dir = path.join(tmp, runId);
    const result = recordChild(dir, path.join(tmp, 'alone.calls'), [`unix://${daemon.socket},capacity=2`]);
    let ended: Invocation | undefined;
    void result.then((r) => (ended = r));
    const d2 = new Docker({ socketPath: daemon.socket });
    const onHost = async () => {
      const id = await journalRunId(dir);
      return id ? (await d2.listContainers({ filters: { label: [`${SANDBOX_LABELS.run}=${id}`] } }).catch(() => [])).length : 0;
    };
    while (!ended && (await onHost()) === 0) await new Promise((r) => setTimeout(r, 200));
    expect(ended, 'the sweep ended before its host ran a sandbox').toBeUndefined();
    daemon.kill('SIGKILL');
    const got = await result;
    expect(got.exit, got.output).toBe(3);
    expect(got.output).toContain('harness: the sweep stopped (Docker or the sandbox image went away: no Docker host can run sandboxes');
    expect(got.output).toContain('The journal is intact: the same command continues once Docker answers');
    const events = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
    expect(events.at(-1)).toMatchObject({ type: 'sweep_stopped', reason: 'fatal' });
    expect(events.some((e) => e.type === 'cell_finished')).toBe(false);
  }, 600_000);
});

const STOP_AT_SESSION = 6;

const recordOnDaemon = (dir: string, countFile: string, dockerHost: string) =>
  recordInChild(dir, { flags: { depths: [1] }, options: { dockerSandboxes: true, countFile }, env: { DOCKER_HOST: dockerHost } });

const journalText = (dir: string) => readFile(path.join(dir, 'journal.jsonl'), 'utf8').catch(() => '');
const started = (text: string) => text.split('\n').filter((l) => l.includes('"type":"session_started"')).length;

describe.skipIf(!HAS_DOCKER)('harness record when its Docker daemon stops mid-sweep (a private dockerd)', () => {
  beforeAll(async () => {
    // Killed by the test above a moment ago (second-dockerd.ts ends its containerd first), or
    // (run alone) never used: a fresh start on the same data-root, and the image copied onto it
    // unless the first test's preflight did so already.
    await daemon.stop();
    await daemon.restart();
    await daemon.loadImage(sandboxImageTag());
  }, 300_000);

  it('stops with exit 3 and the journal intact; once the daemon is back the same command completes every cell and pays no completed call twice', async () => {
    const dir = path.join(tmp, 'stopped');
    const host = `unix://${daemon.socket}`;
    const first = recordOnDaemon(dir, path.join(tmp, 'first.calls'), host);
    // Mid-sweep: inside the leaves, whose containers live on the private daemon.
    let ended: Invocation | undefined;
    void first.then((r) => (ended = r));
    while (!ended && started(await journalText(dir)) < STOP_AT_SESSION) await new Promise((r) => setTimeout(r, 100));
    expect(ended, 'the sweep ended before the daemon was stopped').toBeUndefined();
    await daemon.stop();
    const stopped = await first;
    expect(stopped.exit, stopped.output).toBe(3);
    expect(stopped.output).toContain('The journal is intact: the same command continues once Docker answers');

    // The journal is intact: every line whole, read back by the resume's own reader, the stop journalled.
    const text = await journalText(dir);
    expect(text.endsWith('\n')).toBe(true);
    for (const line of text.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    const events = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
    expect(events.at(-1)).toMatchObject({ type: 'sweep_stopped', reason: 'fatal' });
    expect(events.filter((e) => e.type === 'session_started').length).toBeGreaterThanOrEqual(STOP_AT_SESSION);
    expect(events.some((e) => e.type === 'cell_finished')).toBe(false);
    // The sessions completed before the stop are kept, with every call they made.
    const paid = await transcribedCalls(dir);
    expect(paid.size).toBeGreaterThanOrEqual(STOP_AT_SESSION - 1);
    expect([...paid].every((c) => stopped.calls.includes(c))).toBe(true);

    await daemon.restart();
    const resumed = await recordOnDaemon(dir, path.join(tmp, 'resumed.calls'), host);
    expect(resumed.exit, resumed.output).toBe(0);
    const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as { cells: Array<{ cell: string; status: string }> };
    expect(summary.cells.map((c) => `${c.cell} ${c.status}`)).toEqual(['cap1-rep1-gated measured', 'cap1-rep1-ungated measured']);
    // No call that completed before the stop was made again: the resume answered them from the transcripts.
    expect(resumed.calls.filter((c) => paid.has(c))).toEqual([]);
    expect(resumed.calls.length).toBeGreaterThan(0);
  }, 600_000);
});
