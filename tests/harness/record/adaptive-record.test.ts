import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, readSweepJournal, runRecord, type SimServer } from '../../../harness/index.js';
import type { RecordSeams } from '../../../harness/testing.js';
import { FakeClock } from '../../support/fake-clock.js';
import { HTTP_MANIFEST, providersFile, startServer } from './http-fixture.js';
import { bufferIo, simSeams } from './record-fixture.js';

/** `harness record --concurrency MIN-START-MAX` over HTTP: the controllers pace the sweep's calls and it completes as a fixed one does. */

let tmp: string;
let server: SimServer;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-adaptive-record-'));
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('harness record on adaptive bounds (SIMULATED provider over HTTP)', () => {
  it('records cap 1 with --concurrency 1-2-4: every cell measured, every call through the controller, the bounds in the journal', async () => {
    const providers = await providersFile(path.join(tmp, 'p'), server.url);
    const dir = path.join(tmp, 'run');
    const io = bufferIo();
    let seen: Parameters<NonNullable<RecordSeams['onAdaptive']>>[0] | null = null;
    const seams: RecordSeams = { ...simSeams(), skipWarmup: true, clientClock: new FakeClock(), onAdaptive: (o) => (seen = o) };
    const result = await runRecord(HTTP_MANIFEST, { depths: [1], concurrency: { min: 1, start: 2, max: 4 }, out: dir, providers }, io, seams);
    expect(result.exit).toBe(EXIT.ok);
    expect(result.summary.counts).toMatchObject({ staged: 2, measured: 2 });
    const events = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
    expect(events.find((e) => e.type === 'run_started')).toMatchObject({ concurrency: { min: 1, start: 2, max: 4 } });
    // One controller (one base URL and key for both models), and every request the server received went out on one of its permits.
    expect(seen).not.toBeNull();
    const { rateControls, limiter } = seen!;
    expect(rateControls).toHaveLength(1);
    const status = rateControls[0]!.status();
    expect(status).toMatchObject({ min: 1, max: 4, inFlight: 0, waiting: 0, pacing: 'aimd' });
    expect(status.attempts).toBe(server.stats().received);
    expect(status.attempts).toBeGreaterThan(10);
    // The sessions were admitted by the adaptive limiter, within the bounds' max (no pool: the manifest bound).
    expect(limiter.status()).toMatchObject({ running: 0, queued: 0, hostCapacity: 4 });
  }, 600_000);
});
