import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelClient, RequestLayout } from '../../../engine/index.js';
import { EXIT, FaultPlan, runRecord, type SimServer } from '../../../harness/index.js';
import { firstCallCacheShare, type CacheShare } from '../../../harness/testing.js';
import { HTTP_MANIFEST, providersFile, startServer } from './http-fixture.js';
import { bufferIo, simSeams } from './record-fixture.js';

/**
 * Prompt caching on purpose, measured: the record tests' smoke sweep (caps 1 and 2, both arms)
 * recorded over HTTP against `harness sim serve` with caching on (longest common prefix, a
 * 1,024-token minimum, 128-token blocks, `usage.prompt_tokens_details.cached_tokens`), host
 * sandboxes and the fake grade, three times, each on its own server (a cache of its own):
 * - `shared-first`, the engine's layout (role prompt + spec, then the contract, then the task);
 * - `task-first`, the layout of transcript format 3 (the task first), the "before";
 * - a negative control: `shared-first` with a nonce put at the very start of every call's first
 *   message on the way to the server, so no two prompts share a prefix: nothing may be cached.
 * The figure is the cached share of each session's FIRST call (cache-share.ts): a later call in
 * a tool loop repeats its own history, so it is cached in any layout and proves nothing.
 */

const HEAVY = 1_500_000;
const CACHING = FaultPlan.parse({ version: 2, seed: 1, caching: { min_tokens: 1024, block_tokens: 128 } });

type Variant = 'shared-first' | 'task-first' | 'nonce';
const runs: Partial<Record<Variant, { exit: number; firstCalls: CacheShare[] }>> = {};
const servers: SimServer[] = [];
let tmp: string;

/** Every call's first message opened by a number never sent before: the first characters of every prompt differ. */
function withNonce(client: ModelClient): ModelClient {
  let n = 0;
  return {
    complete: (request) => {
      const [first, ...rest] = request.messages;
      const nonce = `nonce ${++n} ${Math.random()}\n`;
      return client.complete({ ...request, messages: first && first.role !== 'assistant' ? [{ ...first, content: `${nonce}${first.content}` }, ...rest] : request.messages });
    },
  };
}

async function record(variant: Variant): Promise<void> {
  const server = await startServer(CACHING, HTTP_MANIFEST);
  servers.push(server);
  const dir = path.join(tmp, variant);
  const providers = await providersFile(path.join(tmp, `p-${variant}`), server.url);
  const seams = simSeams({});
  const layout: RequestLayout = variant === 'task-first' ? 'task-first' : 'shared-first';
  const sim = seams.modelsFor!;
  const result = await runRecord(HTTP_MANIFEST, { out: dir, depths: [2], providers }, bufferIo(), {
    ...seams,
    requestLayout: layout,
    modelsFor: async (cap, repetition, base) => {
      const models = await sim(cap, repetition, base);
      if (variant !== 'nonce') return models;
      return { roster: models.roster, clients: Object.fromEntries(Object.entries(models.clients).map(([name, c]) => [name, withNonce(c)])) };
    },
  });
  runs[variant] = { exit: result.exit, firstCalls: await firstCallCacheShare(dir) };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-cache-layout-'));
  await Promise.all((['shared-first', 'task-first', 'nonce'] as const).map(record));
  // The figures, for the record of the measurement (the test asserts their order, not their values).
  for (const [variant, run] of Object.entries(runs)) {
    process.stdout.write(`first-call cached share, ${variant}: ${run.firstCalls.map((r) => `${r.role} ${r.share === null ? '-' : (r.share * 100).toFixed(1)}% (${r.sessions} sessions, ${r.cached}/${r.input})`).join('; ')}\n`);
  }
}, HEAVY);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** The roles whose opening request carries the node's whole brief, the objective included (request-layout.ts). */
const BRIEFED = ['planner', 'worker', 'checker', 'verifier', 'reviewer', 'self_reviewer'];
const share = (rows: CacheShare[], role: string) => rows.find((r) => r.role === role);
const total = (rows: CacheShare[]) => rows.reduce((t, r) => ({ input: t.input + r.input, cached: t.cached + r.cached }), { input: 0, cached: 0 });

describe('prompt caching over HTTP: the first call of each session', () => {
  it('records every variant through to the end', () => {
    expect([runs['shared-first']?.exit, runs['task-first']?.exit, runs.nonce?.exit]).toEqual([EXIT.ok, EXIT.ok, EXIT.ok]);
  });

  it('what repeats first: every role shown the spec caches more of its first calls than in the task-first layout, and no role less', () => {
    const after = runs['shared-first']!.firstCalls;
    const before = runs['task-first']!.firstCalls;
    // The roles whose brief carries the objective: it now sits in their system message, shared by all their sessions.
    for (const role of BRIEFED) expect({ role, more: share(after, role)!.share! > (share(before, role)?.share ?? 0) }).toEqual({ role, more: true });
    // The merger and the drift judge are shown no spec: their requests only move the contract, and lose nothing.
    for (const row of after) expect({ role: row.role, less: row.share! < (share(before, row.role)?.share ?? 0) }).toEqual({ role: row.role, less: false });
    // Most of what a first call sends is the role's prompt and the spec: most of it is served from the cache.
    const all = total(after);
    expect(all.cached / all.input).toBeGreaterThan(0.5);
  });

  it('the negative control: with the first characters of every prompt changed, no first call is cached at all', () => {
    const rows = runs.nonce!.firstCalls;
    expect(rows.length).toBeGreaterThanOrEqual(5);
    expect(rows.map((r) => [r.role, r.cached])).toEqual(rows.map((r) => [r.role, 0]));
    expect(total(rows).input).toBeGreaterThan(0);
  });
});
