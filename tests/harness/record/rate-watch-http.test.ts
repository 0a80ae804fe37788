import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT, readSweepJournal, type SimServer, type SweepEventOf } from '../../../harness/index.js';
import { providersFile, recordHttp, startServer } from './http-fixture.js';
import { bufferIo } from './record-fixture.js';

/**
 * An adaptive sweep over HTTP (the openai SDK, the rate controller, `harness sim serve` with a
 * request limit and no rate-limit headers, so the controller meets 429s): the journal holds its
 * coalesced limit changes and a final one, whose counts are the server's own, and the run
 * summary and the plain progress lines say the same.
 */

let server: SimServer | undefined;
afterAll(async () => server?.stop());

describe('the rate controllers of an adaptive sweep, over HTTP', () => {
  it('are journaled coalesced with a final event that agrees with the server, and summarised from it', async () => {
    server = await startServer({ version: 2, seed: 5, windows: [], latency: { distribution: 'fixed', ms: 20 }, limits: { requests_per_minute: 120, burst: 0.025, headers: false } });
    const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-rate-watch-'));
    const providers = await providersFile(path.join(tmp, 'p'), server.url);
    const io = bufferIo();
    const dir = path.join(tmp, 'run');
    const result = await recordHttp(dir, { depths: [1], concurrency: { min: 1, start: 4, max: 16 } }, { providers }, io);
    expect(result.exit).toBe(EXIT.ok);
    const events = (await readSweepJournal(path.join(dir, 'journal.jsonl'))).events;
    const rates = events.filter((e): e is SweepEventOf<'rate_control_changed'> => e.type === 'rate_control_changed');
    expect(rates.length).toBeGreaterThanOrEqual(2);
    const final = rates.filter((e) => e.final);
    expect(final.map((e) => e.provider)).toEqual(['sim-http']);
    expect(rates.at(-1)).toBe(final[0]);
    // The controller's counts are the server's: every attempt reached it, and every 429 came from it.
    const stats = server.stats();
    expect(final[0]).toMatchObject({ pacing: 'aimd', attempts: stats.received, rateLimited: stats.rateLimited.requestsPerMinute });
    expect(final[0]!.rateLimited).toBeGreaterThan(0);
    expect(final[0]!.episodes).toBeGreaterThan(0);
    // Coalesced: never two events of one controller within 30 s, the final one aside.
    const times = rates.filter((e) => !e.final).map((e) => Date.parse(e.at));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(30_000);
    // The summary's figures are the final event's; a person reads them in the table and the plain lines.
    const { provider, limit, min, max, pacing, episodes, attempts, rateLimited } = final[0]!;
    expect(result.summary.controllers).toEqual([{ provider, limit, min, max, pacing, episodes, attempts, rateLimited, rateLimitedShare: rateLimited / attempts }]);
    expect(io.text()).toContain(`rate sim-http final: limit ${limit} (${min}-${max}), aimd, ${episodes} episode`);
    expect(io.text()).toMatch(/rate controller {2}final limit/);
  }, 600_000);
});
