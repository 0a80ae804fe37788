import { describe, expect, it } from 'vitest';
import {
  Accounting,
  MemoryEventSink,
  ModelQuotaExhaustedError,
  ModelRouter,
  ModelUnavailableError,
  NodeAccount,
  NoEligibleModelError,
  askStructured,
  type Clock,
  type ModelSpec,
} from '../../engine/index.js';
import { ScriptedModel, json } from '../support/scripted-model.js';
import { z } from 'zod';

const ROSTER: ModelSpec[] = [
  { name: 'a', model: 'a-m', endpoint: 'e', family: 'alpha', tier: 'medium', prices: { input: 1, output: 2, cachedInput: 0.5 } },
  { name: 'b', model: 'b-m', endpoint: 'e', family: 'beta', tier: 'medium' },
  { name: 'c', model: 'c-s', endpoint: 'e', family: 'gamma', tier: 'small' },
];

function setup(model: ScriptedModel, now = { t: 0 }) {
  const clock: Clock = { now: () => new Date(now.t), sleep: async () => undefined };
  const accounting = new Accounting();
  const events = new MemoryEventSink();
  const router = new ModelRouter({ roster: ROSTER, clients: { e: model }, accounting, events, clock, cooldownMs: 60_000, failuresBeforeCooldown: 2 });
  const account = new NodeAccount('n', 1_000_000);
  const run = <T>(fn: () => Promise<T>) => accounting.run(account, fn);
  return { router, events, account, run, now };
}

describe('ModelRouter', () => {
  it('prefers tiers by role and excludes families in the choice and its whole chain', () => {
    const { router } = setup(new ScriptedModel({}));
    expect(router.candidates('worker').map((m) => m.name)).toEqual(['a', 'b', 'c']);
    expect(router.candidates('drift_judge').map((m) => m.name)).toEqual(['c', 'a', 'b']);
    expect(router.candidates('verifier', ['alpha', 'gamma']).map((m) => m.name)).toEqual(['b']);
  });

  it('cools a failing model down, never blacklists it, and tries it again after the cooldown', async () => {
    let aDown = true;
    const model = new ScriptedModel({ worker: (req) => (req.model === 'a-m' && aDown ? Promise.reject(new ModelUnavailableError('a-m', 'boom')) : { content: req.model }) });
    const { router, run, now, events } = setup(model);
    await run(async () => {
      expect((await router.call('worker', { sessionId: 's1', messages: [] })).content).toBe('b-m');
      expect((await router.call('worker', { sessionId: 's2', messages: [] })).content).toBe('b-m');
      // Two failures: a now rests, so it is tried last.
      expect(router.candidates('worker').map((m) => m.name)).toEqual(['b', 'c', 'a']);
      aDown = false;
      now.t += 61_000;
      expect((await router.call('worker', { sessionId: 's3', messages: [] })).content).toBe('a-m');
    });
    expect(events.ofType('model_fallback').map((e) => `${e.from}->${e.to}`)).toEqual(['a->b', 'a->b']);
  });

  it('records the model that actually answered, and its family, as the contributor', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'x', model: 'b-m' }) });
    const { router, run, account } = setup(model);
    const out = await run(() => router.call('worker', { sessionId: 's', messages: [] }));
    expect([out.spec.name, out.family]).toEqual(['a', 'beta']);
    expect([...account.contributorFamilies]).toEqual(['beta']);
  });

  it('places an unknown answering model in no known family', async () => {
    const model = new ScriptedModel({ verifier: () => ({ content: 'x', model: 'mystery-9000' }) });
    const { router, run, account } = setup(model);
    const out = await run(() => router.call('verifier', { sessionId: 's', messages: [] }));
    expect(out.family).toBe('unknown:mystery-9000');
    expect(account.contributorFamilies.size).toBe(0);
  });

  it('prices usage from the roster and charges it', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'x' }) }, { inputTokens: 1_000_000, outputTokens: 500_000, cachedTokens: 400_000 });
    const { router, run, account } = setup(model);
    const out = await run(() => router.call('worker', { sessionId: 's', messages: [] }));
    expect(out.costUsd).toBeCloseTo(0.6 * 1 + 0.4 * 0.5 + 0.5 * 2);
    expect(account.spent).toBe(1_500_000);
  });

  it('lets quota exhaustion through at once: no fallback can hide a property of the account', async () => {
    const model = new ScriptedModel({ worker: () => Promise.reject(new ModelQuotaExhaustedError('a-m', 'insufficient_quota')) });
    const { router, run } = setup(model);
    await expect(run(() => router.call('worker', { sessionId: 's', messages: [] }))).rejects.toBeInstanceOf(ModelQuotaExhaustedError);
    expect(model.requests).toHaveLength(1);
  });

  it('says so when every family is excluded', async () => {
    const { router, run } = setup(new ScriptedModel({}));
    await expect(run(() => router.call('verifier', { sessionId: 's', messages: [], excludeFamilies: ['alpha', 'beta', 'gamma'] }))).rejects.toThrowErrorMatchingInlineSnapshot(
      `[NoEligibleModelError: no model can serve as verifier: every configured model is of an excluded family (alpha, beta, gamma)]`,
    );
    expect(NoEligibleModelError).toBeDefined();
  });
});

describe('askStructured', () => {
  const Shape = z.object({ n: z.number() });

  it('re-asks once with the exact problem, then accepts a readable answer', async () => {
    let n = 0;
    const model = new ScriptedModel({ checker: () => (++n === 1 ? { content: 'Sure! {"n": "three"}' } : { content: '```json\n{"n": 3}\n```' }) });
    const { router, run } = setup(model);
    const out = await run(() => askStructured(router, 'checker', Shape, { sessionId: 's', messages: [{ role: 'user', content: 'go' }] }));
    expect(out.value).toEqual({ n: 3 });
    const reask = model.requests[1]!.messages.at(-1)!;
    expect('content' in reask && reask.content).toMatch(/^Your reply could not be used: n: Invalid input: expected number, received string\./);
  });

  it('throws after a second unreadable reply instead of inventing a fallback value', async () => {
    const model = new ScriptedModel({ checker: () => json({ wrong: true }) });
    const { router, run } = setup(model);
    await expect(run(() => askStructured(router, 'checker', Shape, { sessionId: 's', messages: [] }))).rejects.toMatchObject({ code: 'structured_output_unreadable' });
    expect(model.requests).toHaveLength(2);
  });
});
