import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSweepJournal, sandboxImageTag } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { startSecondDockerd, type SecondDockerd } from '../../support/second-dockerd.js';
import { recordInChild, transcribedCalls, type Invocation } from './record-child.js';

/**
 * The fatal outcome for real: `harness record` (cap 1 of the SIMULATED record sweep, sandboxes
 * in Docker, a fake grade) runs in a child process against a PRIVATE dockerd of its own
 * (DOCKER_HOST), which the test stops mid-sweep, then starts again on the same data-root. The
 * daemon every other test uses is never touched.
 */

const STOP_AT_SESSION = 6;

const recordChild = (dir: string, countFile: string, dockerHost: string) =>
  recordInChild(dir, { flags: { depths: [1] }, options: { dockerSandboxes: true, countFile }, env: { DOCKER_HOST: dockerHost } });

const journalText = (dir: string) => readFile(path.join(dir, 'journal.jsonl'), 'utf8').catch(() => '');
const started = (text: string) => text.split('\n').filter((l) => l.includes('"type":"session_started"')).length;

describe.skipIf(!HAS_DOCKER)('harness record when its Docker daemon stops mid-sweep (a private dockerd)', () => {
  let daemon: SecondDockerd;
  let tmp: string;

  beforeAll(async () => {
    tmp = await mkdtemp(path.join(tmpdir(), 'rdh-docker-stop-'));
    daemon = await startSecondDockerd();
    await daemon.loadImage(sandboxImageTag());
  }, 300_000);

  afterAll(async () => {
    await daemon?.cleanup();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, 120_000);

  it('stops with exit 3 and the journal intact; once the daemon is back the same command completes every cell and pays no completed call twice', async () => {
    const dir = path.join(tmp, 'run');
    const host = `unix://${daemon.socket}`;
    const first = recordChild(dir, path.join(tmp, 'first.calls'), host);
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
    const resumed = await recordChild(dir, path.join(tmp, 'resumed.calls'), host);
    expect(resumed.exit, resumed.output).toBe(0);
    const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as { cells: Array<{ cell: string; status: string }> };
    expect(summary.cells.map((c) => `${c.cell} ${c.status}`)).toEqual(['cap1-rep1-gated measured', 'cap1-rep1-ungated measured']);
    // No call that completed before the stop was made again: the resume answered them from the transcripts.
    expect(resumed.calls.filter((c) => paid.has(c))).toEqual([]);
    expect(resumed.calls.length).toBeGreaterThan(0);
  }, 600_000);
});
