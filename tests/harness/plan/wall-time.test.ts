import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, forecastWallTime, loadManifest, measuredLoads, readRecordedRun, runCallFigures, runCli, type PairLoad } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';

/**
 * The wall-time forecast of `harness plan` (harness/plan/wall-time.ts): from declared limits and
 * latency, or from a recorded run's measured figures, the floor that binds and the others.
 */

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-wall-time-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

const RECURSION = path.join(REPO_ROOT, 'manifests/recursion-depth.yaml');

/** A provider file serving both of recursion-depth's placeholder models from one gateway. */
async function providers(name: string, gateway: string, extra = ''): Promise<string> {
  const file = path.join(tmp, `${name}.yaml`);
  await writeFile(
    file,
    [
      'version: 1',
      'providers:',
      '  gateway:',
      '    base_url: https://api.example.com/v1',
      '    api_key_env: EXAMPLE_KEY',
      ...gateway.split('\n').map((l) => `    ${l}`),
      'models:',
      '  executor-model: { provider: gateway, model: vendor-a/x, family: vendor-a }',
      '  reviewer-model: { provider: gateway, model: vendor-b/y, family: vendor-b }',
      extra,
    ].join('\n'),
  );
  return file;
}

async function plan(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(['plan', ...argv], io);
  const out = io.stdout();
  const wall = out.slice(out.indexOf('Wall time'), out.indexOf('\n\n', out.indexOf('Wall time')));
  // `flat`: the paragraph on one line, for the assertions that read a sentence across its wrapping.
  return { code, stderr: io.stderr(), out, wall, flat: wall.replace(/\s+/g, ' ') };
}

describe('the wall-time forecast from declared limits', () => {
  it("reproduces the issue's figures: 23,204 sessions at 2 minutes a session, 4 at once, take about 8 days; a day needs about 32 in flight", async () => {
    const { code, stderr, wall } = await plan(RECURSION, '--providers', await providers('latency', 'latency_s: 20'));
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(wall).toMatchInlineSnapshot(`
      "Wall time ≈ 8.1 days (bound: 4 sessions in flight x 2.0 min a session).
        Under a day needs 32.2 sessions in flight on average (at these seconds a session).
        max_sessions 8,000 stops the sweep after ≈ 2.8 days.
        executor at gateway: 18,820 sessions, 6 calls a session (assumed), 167k tokens a call (a
          session at its token ceiling), latency 20 s (declared)
        reviewer at gateway: 4,384 sessions, 6 calls a session (assumed), 167k tokens a call (a
          session at its token ceiling), latency 20 s (declared)"
    `);
    const json = JSON.parse((await plan(RECURSION, '--providers', await providers('latency', 'latency_s: 20'), '--json')).out) as { wallTime: { plan: { seconds: number; inFlightForADay: number; sessions: number; bound: { kind: string } } } };
    expect(json.wallTime.plan).toMatchObject({ sessions: 23_204, seconds: 23_204 * 120 / 4, bound: { kind: 'sessions' } });
    expect(json.wallTime.plan.inFlightForADay).toBeCloseTo((23_204 * 120) / 86_400, 6);
  });

  it('names the rate limit in requests when it binds, and what latency x calls in flight would allow', async () => {
    const manifest = path.join(tmp, 'adaptive.yaml');
    const { readFile } = await import('node:fs/promises');
    await writeFile(manifest, (await readFile(RECURSION, 'utf8')).replace('spec: ../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`).replace(/^concurrency: 4 .*$/m, 'concurrency: "4-20-100"'));
    const { code, wall } = await plan(manifest, '--providers', await providers('rpm', 'latency_s: 20\nrate_limit: { rpm: 100 }'));
    expect(code).toBe(0);
    expect(wall).toMatchInlineSnapshot(`
      "Wall time ≈ 23 h (bound: 100 requests/min at gateway (139,224 calls); latency 20 s x 100 calls
        in flight at gateway would allow 7.7 h).
        max_sessions 8,000 stops the sweep after ≈ 8.0 h.
        executor at gateway: 18,820 sessions, 6 calls a session (assumed), 167k tokens a call (a
          session at its token ceiling), latency 20 s (declared)
        reviewer at gateway: 4,384 sessions, 6 calls a session (assumed), 167k tokens a call (a
          session at its token ceiling), latency 20 s (declared)"
    `);
  });

  it('binds on the token limit, or the Docker hosts, when they are the tightest', async () => {
    const tokens = await plan(RECURSION, '--providers', await providers('tpm', 'latency_s: 20\nrate_limit: { rpm: 10000, tpm: 2000000 }'));
    expect(tokens.flat).toMatch(/^Wall time ≈ 8\.1 days \(bound: 2,000,000 tokens\/min at gateway/);
    const manifest = path.join(tmp, 'wide.yaml');
    const { readFile } = await import('node:fs/promises');
    await writeFile(manifest, (await readFile(RECURSION, 'utf8')).replace('spec: ../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`).replace(/^concurrency: 4 .*$/m, 'concurrency: 64'));
    const docker = await plan(manifest, '--providers', await providers('docker', 'latency_s: 20', 'docker_hosts:\n  - { url: "unix:///var/run/docker.sock", capacity: 16 }'));
    expect(docker.flat).toMatch(/^Wall time ≈ 2\.0 days \(bound: Docker hosts' capacity 16 x 2\.0 min a session; 64 sessions in flight x 2\.0 min a session would allow 12 h\)/);
  });

  it('says plainly when it cannot forecast, and when it has only a lower bound', async () => {
    const none = await plan(RECURSION);
    expect(none.flat).toMatch(/^Wall time: cannot forecast, nothing declared or measured bounds it/);
    const rpmOnly = await plan(RECURSION, '--providers', await providers('rpm-only', 'rate_limit: { rpm: 500 }'));
    expect(rpmOnly.flat).toMatch(/^Wall time at least 4\.6 h \(bound: 500 requests\/min at gateway \(139,224 calls\)\)\. Only a lower bound: nothing says the seconds a session takes/);
  });
});

describe('the wall-time forecast from a recorded run', () => {
  it("reads the run's sessions, calls, tokens, session times and call latencies per pair", async () => {
    const dir = path.join(REPO_ROOT, 'runs/example-sim');
    const figures = await runCallFigures(dir, (await readRecordedRun(dir)).events);
    // The example's journal: 175 sessions making 291 calls (session_finished turns), one transcript response each.
    expect(figures.executor.sessions + figures.reviewer.sessions).toBe(175);
    expect(figures.executor.calls + figures.reviewer.calls).toBe(291);
    expect(figures.executor.latency.calls + figures.reviewer.latency.calls).toBe(291);
    expect(figures.executor.sessionSeconds / figures.executor.sessions).toBeGreaterThan(1);
  });

  it('forecasts the cells left at the measured seconds a session, over the run it learned from', async () => {
    const { code, out } = await plan(path.join(REPO_ROOT, 'tests/bench/fixtures/cap3-http.yaml'), '--from', path.join(REPO_ROOT, 'runs/example-sim'));
    expect(code).toBe(0);
    const left = out.slice(out.indexOf('Wall time of the cells left')).replace(/\s+/g, ' ');
    expect(left).toMatch(/^Wall time of the cells left, from \S+ ≈ [\d.]+ (?:s|min|h|days) \(bound: 4 sessions in flight x [\d.]+ (?:s|min) a session\)\./);
    expect(left).toMatch(/executor at models\.sim-executor \(no provider configuration\): [\d,]+ sessions, [\d.]+ calls a session \(measured\)/);
  });

  it('splits the sessions left as the run split them, at its measured figures (pure)', async () => {
    const manifest = (await loadManifest(RECURSION)).manifest;
    const run = {
      executor: { sessions: 30, calls: 300, tokens: 3_000_000, sessionSeconds: 30 * 200, latency: { calls: 300, seconds: 300 * 15 } },
      reviewer: { sessions: 10, calls: 20, tokens: 100_000, sessionSeconds: 10 * 40, latency: { calls: 20, seconds: 20 * 5 } },
    };
    const loads = measuredLoads(manifest, undefined, 400, run);
    expect(loads.map((l) => [l.pair, l.sessions, l.callsPerSession, l.sessionS?.value])).toEqual([
      ['executor', 300, { value: 10, source: 'measured' }, 200],
      ['reviewer', 100, { value: 2, source: 'measured' }, 40],
    ]);
    const w = forecastWallTime({ loads, concurrency: { kind: 'fixed', sessions: 4 } });
    expect(w.status === 'forecast' && w.seconds).toBe((300 * 200 + 100 * 40) / 4);
  });

  it('refuses a load that is not finite (a bug upstream)', () => {
    const bad: PairLoad = { pair: 'executor', sessions: Number.NaN, callsPerSession: { value: 1, source: 'assumed' }, tokensPerCall: { value: 1, source: 'assumed' }, provider: { id: 'x', name: 'x' } };
    expect(() => forecastWallTime({ loads: [bad], concurrency: { kind: 'fixed', sessions: 1 } })).toThrow();
  });
});
