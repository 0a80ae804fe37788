import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FaultPlanInvalidError, REPO_ROOT, exitCodeFor, loadFaultPlan } from '../../../../harness/index.js';

const dir = await mkdtemp(path.join(tmpdir(), 'rdh-faults-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The one-line problems of a fault plan, with the file's path shown as <file>. */
async function problems(text: string): Promise<string[]> {
  const file = path.join(dir, `plan-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, text);
  const error = await loadFaultPlan(file).then(() => null, (e: unknown) => e);
  expect(error).toBeInstanceOf(FaultPlanInvalidError);
  expect(exitCodeFor(error)).toBe(2);
  return (error as FaultPlanInvalidError).problems.map((line) => line.replace(file, '<file>'));
}

describe('the fault plan', () => {
  it('loads the committed example and the scaled-down plan the tests use', async () => {
    const example = await loadFaultPlan(path.join(REPO_ROOT, 'manifests', 'faults.example.yaml'));
    expect(Object.keys(example.plan)).toEqual(['version', 'seed', 'latency', 'rate_limit', 'limits', 'caching', 'capabilities', 'windows']);
    const ci = await loadFaultPlan(path.join(import.meta.dirname, 'faults-ci.yaml'));
    expect(ci.plan).toEqual({
      version: 1,
      seed: 3,
      latency: { distribution: 'uniform', min_ms: 10, max_ms: 50 },
      rate_limit: { share: 0.2, retry_after_s: 0.05 },
      windows: [{ fault: 'outage', after_requests: 30, for_s: 5 }],
    });
  });

  it('refuses a bad plan with one line per problem, each naming the field and the fix', async () => {
    const text = [
      'version: 1',
      'seed: -1',
      'latency: { distribution: gauss, ms: 5 }',
      'rate_limit: { share: 1.5, retry_after: 2 }',
      'limits: { requests_per_minute: 0 }',
      'caching: { share: 0.5 }',
      'windows:',
      '  - { fault: outage, after_requests: 3, for_requests: 2 }',
      '  - { fault: http_error, status: 429, for_s: 3 }',
      '  - { fault: http_error, after_s: 1, after_requests: 3, for_s: 1 }',
      '  - { fault: outage, status: 503, after_s: 1, for_s: 2 }',
    ].join('\n');
    expect(await problems(text)).toMatchInlineSnapshot(`
      [
        "<file>:2: seed: must be at least 0, got -1; e.g. seed: 7",
        "<file>:3: latency.distribution: expected one of fixed, uniform, lognormal, got "gauss"; e.g. distribution: uniform",
        "<file>:4: rate_limit.share: must be at most 1, got 1.5; e.g. share: 0.2",
        "<file>:4: rate_limit.retry_after_s: missing; add it, e.g. retry_after_s: 0.5",
        "<file>:4: rate_limit.retry_after: unknown field; did you mean "retry_after_s"? Rename or remove it",
        "<file>:5: limits.requests_per_minute: must be a positive whole number, got 0; e.g. requests_per_minute: 600",
        "<file>:6: caching.share: unknown field; remove it (fields here: min_tokens, block_tokens, max_blocks)",
        "<file>:8: windows[0].for_requests: an outage refuses connections, so no request reaches the server to end it; use for_s",
        "<file>:9: windows[1].status: must be a 5xx status (500 to 599: 429s come from rate_limit and limits), got 429; e.g. status: 503",
        "<file>:9: windows[1].after_requests: missing: say when the window starts, e.g. after_requests: 20 or after_s: 30",
        "<file>:10: windows[2].after_s: the window already starts at after_requests; keep one of the two",
        "<file>:10: windows[2].status: missing: say which status the burst answers with, e.g. status: 503",
        "<file>:11: windows[3].status: an outage answers nothing; remove status, or make it fault: http_error",
      ]
    `);
  });

  it('takes retry_after_s as a number or a [min, max] range, and refuses a range whose min is above its max', async () => {
    const ranged = path.join(dir, 'ranged.yaml');
    await writeFile(ranged, 'version: 2\nseed: 1\nrate_limit: { share: 0.2, retry_after_s: [1, 5] }\n');
    expect((await loadFaultPlan(ranged)).plan.rate_limit?.retry_after_s).toEqual([1, 5]);
    expect(await problems('version: 2\nseed: 1\nrate_limit: { share: 0.2, retry_after_s: [5, 1] }\n')).toMatchInlineSnapshot(`
      [
        "<file>:3: rate_limit.retry_after_s: is a [min, max] range whose min is above its max; swap them",
      ]
    `);
  });

  it('keeps version 2 fields out of a version 1 plan, which means what it meant when written, and takes them at version 2', async () => {
    const v2 = 'limits: { requests_per_minute: 60, burst: 0.1, headers: false }\ncaching: { min_tokens: 1024 }\ncapabilities: { tools: false }\n';
    expect(await problems(`version: 1\nseed: 1\n${v2}`)).toMatchInlineSnapshot(`
      [
        "<file>:3: limits.burst: is a version 2 field; set version: 2 (see manifests/faults.example.yaml)",
        "<file>:3: limits.headers: is a version 2 field; set version: 2 (see manifests/faults.example.yaml)",
        "<file>:4: caching: is a version 2 field; set version: 2 (see manifests/faults.example.yaml)",
        "<file>:5: capabilities: is a version 2 field; set version: 2 (see manifests/faults.example.yaml)",
      ]
    `);
    const file = path.join(dir, 'v2.yaml');
    await writeFile(file, `version: 2\nseed: 1\n${v2}`);
    expect((await loadFaultPlan(file)).plan).toMatchObject({ limits: { burst: 0.1, headers: false }, caching: { min_tokens: 1024 }, capabilities: { tools: false } });
    expect(await problems('version: 3\nseed: 1\n')).toHaveLength(1);
  });

  it('refuses latency fields the distribution does not take, and a range upside down', async () => {
    expect(await problems('version: 1\nseed: 1\nlatency: { distribution: uniform, min_ms: 50, max_ms: 10, median_ms: 3 }\n')).toMatchInlineSnapshot(`
      [
        "<file>:3: latency.median_ms: not used by distribution uniform (it takes min_ms and max_ms); remove it",
        "<file>:3: latency.max_ms: is below min_ms (50); swap them",
      ]
    `);
    expect(await problems('version: 1\nseed: 1\nlatency: { distribution: lognormal, median_ms: 300 }\n')).toMatchInlineSnapshot(`
      [
        "<file>:3: latency.sigma: missing: distribution lognormal needs median_ms and sigma; add sigma",
      ]
    `);
  });

  it('says so in one line when the file is missing or empty', async () => {
    expect(await problems('')).toMatchInlineSnapshot(`
      [
        "<file>: the fault plan is empty; write its fields (copy manifests/faults.example.yaml to start)",
      ]
    `);
    const missing = await loadFaultPlan(path.join(dir, 'nope.yaml')).catch((e: Error) => e.message.replace(dir, '<dir>'));
    expect(missing).toMatchInlineSnapshot(`"<dir>/nope.yaml: cannot read the fault plan: no such file; check the path (copy manifests/faults.example.yaml to start)"`);
  });
});
