import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, readSweepJournal, type SimServer } from '../../../harness/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { manifestVariant, providersFile, recordHttp, startServer } from './http-fixture.js';
import { bufferIo } from './record-fixture.js';

/**
 * max_cost_usd below one call's worst case, over HTTP against the SIMULATED server: the sweep
 * stops before any call, and no session is counted (a session is refused before it is counted
 * when its first, live call could not be admitted under the cost ceiling).
 */

let tmp: string;
let server: SimServer;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-http-cost-floor-'));
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('max_cost_usd below one call\'s worst case (SIMULATED server)', () => {
  it('stops before any call with 0 sessions counted, in the summary, summary.json and the journal (exit 8)', async () => {
    const providers = await providersFile(path.join(tmp, 'p'), server.url);
    const manifest = await manifestVariant(path.join(tmp, 'm'), 'cost-floor', [['max_sessions: 400', 'max_sessions: 400\nmax_cost_usd: 0.000001']]);
    const dir = path.join(tmp, 'run');
    const io = bufferIo();
    const result = await recordHttp(dir, { depths: [1] }, { providers, manifest, clock: new FakeClock(), skipWarmup: true }, io);
    expect(result.exit).toBe(EXIT.ceilingReached);
    expect(server.stats().received).toBe(0);
    expect(result.summary.sessions.counted).toBe(0);
    expect(JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')).sessions.counted).toBe(0);
    expect((await readSweepJournal(path.join(dir, 'journal.jsonl'))).events.filter((e) => e.type === 'session_started')).toEqual([]);
    expect(io.text()).toContain('sessions 0 of max_sessions 400; paid $0.00 of max_cost_usd $0.00');
  }, 300_000);
});
