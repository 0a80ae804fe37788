import { describe, expect, it } from 'vitest';
import { createRateController, OpenAIModelClient, ProviderPatience, type ModelRequest, type RateControl } from '../../../engine/index.js';
import { PROBE_CELL, type FaultPlan } from '../../../harness/index.js';
import { AcceleratedClock } from '../../support/accelerated-clock.js';
import { serve, EXECUTOR } from '../sim/serve/serve-fixture.js';

/**
 * The controller over HTTP: the SIMULATED server's per-minute request bucket, many concurrent
 * calls through the real OpenAIModelClient sharing one controller. Time runs 10 times faster
 * (server, clients and controller on one accelerated clock), so four minutes of quota take
 * about 25 s; latency is real (200-400 ms, i.e. 2-4 s of quota time).
 */
const FACTOR = 10;
const RPM = 300;
const MINUTES = 4;

const request = (i: number): ModelRequest => ({
  model: EXECUTOR, role: 'worker', sessionId: `s${i}`, nodeId: 'root', attempt: 1, cellId: PROBE_CELL, maxTokens: 8, messages: [{ role: 'user', content: `Reply with the single word: ok (${i})` }],
});

async function drive(headers: boolean): ReturnType<typeof driveAgainst> {
  const clock = new AcceleratedClock(FACTOR);
  const faults = { version: 2, seed: 3, latency: { distribution: 'uniform', min_ms: 200, max_ms: 400 }, limits: { requests_per_minute: RPM, burst: 0.1, headers }, windows: [] } as unknown as FaultPlan;
  const server = await serve(faults, { now: () => clock.now().getTime() });
  try {
    return await driveAgainst(server.url, headers, clock);
  } finally {
    await server.stop();
  }
}

async function driveAgainst(url: string, headers: boolean, clock: AcceleratedClock): Promise<{ control: RateControl; answered: number; steadyShare: number; steadyPerMinute: number; calls: number }> {
  const control = createRateController({ provider: 'sim', min: 2, start: 8, max: 64, clock });
  const client = new OpenAIModelClient({ baseURL: url, apiKey: 'sim-key-000000', rateControl: control, clock, patience: new ProviderPatience(3_600_000) });
  const ends: number[] = [];
  let calls = 0;
  // The controller's counts once the first minute (slow start, the burst) is over.
  const warm: { attempts: number; rateLimited: number } = { attempts: 0, rateLimited: 0 };
  const snapshot = setTimeout(() => Object.assign(warm, control.status()), 60_000 / FACTOR);
  const worker = async () => {
    while (clock.elapsed() < MINUTES * 60_000) {
      const out = await client.complete(request(calls++));
      expect(out.content).toBeTruthy();
      ends.push(clock.elapsed());
    }
  };
  await Promise.all(Array.from({ length: 40 }, worker));
  clearTimeout(snapshot);
  const end = control.status();
  const steadyShare = (end.rateLimited - warm.rateLimited) / Math.max(1, end.attempts - warm.attempts);
  // After the first minute (the burst spent, the limit found): answered calls per minute of the rest.
  const steady = ends.filter((t) => t >= 60_000 && t < MINUTES * 60_000).length / (MINUTES - 1);
  return { control, answered: ends.length, steadyShare, steadyPerMinute: steady, calls };
}

// The two cases at once, each with its own server and clock: the file mostly waits on quota time.
describe('the rate controller over HTTP against the SIMULATED server\'s request limit', () => {
  it.concurrent.each([true, false])('with x-ratelimit headers %s: every call answered, near the limit, few 429s', async (headers) => {
    const run = await drive(headers);
    const status = run.control.status();
    expect(run.answered).toBe(run.calls);
    expect(status.pacing).toBe(headers ? 'headers' : 'aimd');
    expect(status.inFlight).toBe(0);
    console.log(JSON.stringify({ headers, limit: status.limit, episodes: status.episodes, attempts: status.attempts, rateLimited: status.rateLimited, steadyPerMinute: run.steadyPerMinute, steadyShare: run.steadyShare }));
    // Throughput against the limit is a timing figure: the bench (npm run bench -- throughput) measures it and holds the
    // 0.85 goal. What holds on any machine, however loaded, is the share of 429s (a slower box sends fewer, never more):
    // without the controller, 40 clients against this limit draw most of their tries as 429s.
    expect(run.steadyShare).toBeLessThan(headers ? 0.01 : 0.08);
    // And some calls went out in the steady window at all, so the share is not 0 of nothing.
    expect(run.steadyPerMinute).toBeGreaterThan(RPM / 10);
  }, 120_000);
});
