import { describe, expect, it } from 'vitest';
import {
  Accounting,
  BudgetExhaustedError,
  ModelConfigurationError,
  ModelRateLimitedError,
  placeModel,
  priceOf,
  MemoryEventSink,
  ModelQuotaExhaustedError,
  ModelRouter,
  ModelUnavailableError,
  NodeAccount,
  NoEligibleModelError,
  askStructured,
  type Clock,
  type ModelSpec,
} from '../../../engine/index.js';
import { ScriptedModel, json } from '../../support/scripted-model.js';
import { z } from 'zod';

const ROSTER: ModelSpec[] = [
  { name: 'a', model: 'a-m', endpoint: 'e', family: 'alpha', tier: 'medium', prices: { input: 1, output: 2, cachedInput: 0.5 } },
  { name: 'a2', model: 'a2-s', endpoint: 'e', family: 'alpha', tier: 'small' },
  { name: 'b', model: 'b-m', endpoint: 'e', family: 'beta', tier: 'medium' },
  { name: 'b2', model: 'b2-s', endpoint: 'e', family: 'beta', tier: 'small' },
  { name: 'c', model: 'c-s', endpoint: 'e', family: 'gamma', tier: 'small' },
];

function setup(model: ScriptedModel, now = { t: 0 }, roster: ModelSpec[] = ROSTER) {
  const clock: Clock = { now: () => new Date(now.t), sleep: async () => undefined };
  const accounting = new Accounting();
  const events = new MemoryEventSink();
  const router = new ModelRouter({ roster, clients: { e: model }, accounting, events, clock, cooldownMs: 60_000, failuresBeforeCooldown: 2 });
  const account = new NodeAccount('n', 1_000_000);
  const run = <T>(fn: () => Promise<T>) => accounting.run(account, fn);
  return { router, events, account, run, now, accounting };
}

describe('ModelRouter', () => {
  it('prefers tiers by role, keeps the chain in the preferred model\'s family, and excludes families in the choice and its whole chain', () => {
    const { router } = setup(new ScriptedModel({}));
    expect(router.candidates('worker').map((m) => m.name)).toEqual(['a', 'a2']);
    expect(router.candidates('drift_judge').map((m) => m.name)).toEqual(['a2', 'a']);
    expect(router.candidates('verifier', ['alpha', 'gamma']).map((m) => m.name)).toEqual(['b', 'b2']);
  });

  it('never moves a role to another family: with no fallback of its own family, the call fails naming the role\'s model', async () => {
    const model = new ScriptedModel({ worker: (req) => (req.model === 'a-m' ? Promise.reject(new ModelUnavailableError('a-m', 'connection refused')) : { content: req.model }) });
    const { router, run, events } = setup(model, { t: 0 }, ROSTER.filter((m) => m.name === 'a' || m.name === 'b'));
    const error = await run(() => router.call('worker', { sessionId: 's', messages: [] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatchInlineSnapshot(`"model a-m is unavailable: connection refused"`);
    expect(model.requests.map((r) => r.model)).toEqual(['a-m']);
    expect(events.ofType('model_fallback').map((e) => `${e.from}->${e.to}`)).toEqual(['a->null']);
  });

  it('moves a call only for a classified provider failure: a programming error is thrown as it is, with no fallback and no cooldown', async () => {
    const model = new ScriptedModel({ worker: (req) => (req.model === 'a-m' ? Promise.reject(new TypeError("Cannot read properties of undefined (reading 'choices')")) : { content: req.model }) });
    const { router, run, events } = setup(model);
    const error = await run(() => router.call('worker', { sessionId: 's', messages: [] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(model.requests.map((r) => r.model)).toEqual(['a-m']);
    expect(events.ofType('model_fallback')).toEqual([]);
    expect(router.candidates('worker').map((m) => m.name)).toEqual(['a', 'a2']);
  });

  it('cools a failing model down, never blacklists it, and tries it again after the cooldown', async () => {
    let aDown = true;
    const model = new ScriptedModel({ worker: (req) => (req.model === 'a-m' && aDown ? Promise.reject(new ModelUnavailableError('a-m', 'boom')) : { content: req.model }) });
    const { router, run, now, events } = setup(model);
    await run(async () => {
      expect((await router.call('worker', { sessionId: 's1', messages: [] })).content).toBe('a2-s');
      expect((await router.call('worker', { sessionId: 's2', messages: [] })).content).toBe('a2-s');
      // Two failures: a now rests, so it is tried last (its family's other model first, never another family).
      expect(router.candidates('worker').map((m) => m.name)).toEqual(['a2', 'a']);
      aDown = false;
      now.t += 61_000;
      expect((await router.call('worker', { sessionId: 's3', messages: [] })).content).toBe('a-m');
    });
    expect(events.ofType('model_fallback').map((e) => `${e.from}->${e.to}`)).toEqual(['a->a2', 'a->a2']);
  });

  it('records the model that actually answered, and its family, as the contributor', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'x', model: 'b-m' }) });
    const { router, run, account } = setup(model);
    const out = await run(() => router.call('worker', { sessionId: 's', messages: [] }));
    expect([out.spec.name, out.family]).toEqual(['a', 'beta']);
    expect([...account.contributorFamilies]).toEqual(['beta']);
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
    // (kept) NoEligibleModelError names the excluded families.
    const { router, run } = setup(new ScriptedModel({}));
    await expect(run(() => router.call('verifier', { sessionId: 's', messages: [], excludeFamilies: ['alpha', 'beta', 'gamma'] }))).rejects.toThrowErrorMatchingInlineSnapshot(
      `[NoEligibleModelError: no model can serve as verifier: every configured model is of an excluded family (alpha, beta, gamma)]`,
    );
  });
});

describe('ModelRouter: independence fails closed', () => {
  it('places a dated snapshot of a roster id, and nothing else it does not know', () => {
    expect(placeModel('a-m', ROSTER)).toEqual({ family: 'alpha', placed: true });
    expect(placeModel('a-m-2025-01-31', ROSTER)).toEqual({ family: 'alpha', placed: true });
    expect(placeModel('b', ROSTER)).toEqual({ family: 'beta', placed: true });
    for (const id of ['a-m:free', 'vendor/a-m', 'a-mini', 'mystery-9000']) expect(placeModel(id, ROSTER)).toEqual({ family: `unplaced:${id}`, placed: false });
    // An id two families both claim places nobody.
    expect(placeModel('shared', [...ROSTER, { name: 'x', model: 'shared', endpoint: 'e', family: 'alpha', tier: 'small' }, { name: 'y', model: 'shared', endpoint: 'e', family: 'beta', tier: 'small' }]).placed).toBe(false);
  });

  it('treats an unplaceable contributor as a contributor to every family: nobody may judge after it', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'x', model: 'mystery-9000' }), verifier: () => ({ content: 'ok' }) });
    const { router, run, account } = setup(model);
    await run(async () => {
      expect((await router.call('worker', { sessionId: 'w', messages: [] })).family).toBe('unplaced:mystery-9000');
      expect([...account.contributorFamilies]).toEqual(['unplaced:mystery-9000']);
      await expect(router.call('verifier', { sessionId: 'v', messages: [], excludeFamilies: account.contributorFamilies })).rejects.toThrowErrorMatchingInlineSnapshot(
        `[NoEligibleModelError: no model can serve as verifier: a model that produced this work (mystery-9000) cannot be placed in a family, so no model can be shown independent of it]`,
      );
    });
    expect(model.byRole('verifier')).toHaveLength(0);
  });

  it('re-checks who answered after every call: an excluded or unplaceable answer is paid for, never used, and the chain moves on', async () => {
    // a (alpha) is excluded; b's endpoint answers as alpha (a gateway routing elsewhere), b2 answers as an unknown id.
    const model = new ScriptedModel({ verifier: (req) => ({ content: req.model, model: req.model === 'b-m' ? 'a-m' : 'mystery' }) });
    const { router, run, account, events } = setup(model);
    const error = await run(() => router.call('verifier', { sessionId: 'v', messages: [], excludeFamilies: ['alpha'] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoEligibleModelError);
    expect(model.byRole('verifier').map((r) => r.model)).toEqual(['b-m', 'b2-s']);
    expect(events.ofType('model_fallback').map((e) => e.reason)).toEqual([
      'no model can serve as verifier: a-m answered for b-m as family alpha, which may not serve here (excluded: alpha)',
      'no model can serve as verifier: mystery answered for b2-s as family unplaced:mystery, which may not serve here (excluded: alpha)',
    ]);
    expect(account.spent).toBe(240);
    expect(router.lastAnswer('v')).toBeUndefined();
  });
});

describe('ModelRouter: the budget is a ceiling', () => {
  it('sizes every call from what the node and its ancestors have left, and refuses one whose prompt does not fit', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'x' }) }, { inputTokens: 100, outputTokens: 20, cachedTokens: 0 });
    const { router, accounting } = setup(model);
    const root = new NodeAccount('root', 1_000);
    const leaf = root.child('leaf', 900);
    root.spent = 400; // the rest of the tree spent this already: the ancestor binds, not the leaf
    await accounting.run(leaf, async () => {
      await router.call('worker', { sessionId: 's', messages: [{ role: 'user', content: 'x'.repeat(400) }] });
      expect(model.requests[0]!.maxTokens).toBe(600 - Math.ceil((JSON.stringify([{ role: 'user', content: 'x'.repeat(400) }]) + '[]').length / 4));
      const error = await router.call('worker', { sessionId: 's', messages: [{ role: 'user', content: 'x'.repeat(4000) }] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BudgetExhaustedError);
      expect((error as Error).message).toMatch(/^budget refused a call for node leaf: the next call needs about 10\d\d input tokens and the ancestor leaves 480 tokens$/);
    });
    expect(model.requests).toHaveLength(1);
  });

  it('charges a reply without usable usage a conservative estimate and flags it', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'y'.repeat(300), usage: { inputTokens: -4 } }) });
    const { router, run, account, events } = setup(model);
    const out = await run(() => router.call('worker', { sessionId: 's', messages: [{ role: 'user', content: 'z'.repeat(600) }] }));
    expect(out.usage.inputTokens).toBeGreaterThanOrEqual(300);
    expect(out.usageNote).toBe('malformed usage (inputTokens); charged a conservative estimate');
    expect(account.estimatedCalls).toBe(1);
    expect(events.ofType('charge')[0]!.usageNote).toBe(out.usageNote);
  });

  it('never charges a negative cost, and enforces a session cost ceiling where prices are known', async () => {
    const priced: ModelSpec = { name: 'p', model: 'p-m', endpoint: 'e', family: 'delta', tier: 'medium', prices: { input: 10, output: 30, cachedInput: 1 } };
    expect(priceOf(priced, { inputTokens: 100, outputTokens: 0, cachedTokens: 900 })).toBeGreaterThanOrEqual(0);
    const model = new ScriptedModel({ worker: () => ({ content: 'x' }) }, { inputTokens: 10_000, outputTokens: 1_000, cachedTokens: 0 });
    const clock: Clock = { now: () => new Date(0), sleep: async () => undefined };
    const accounting = new Accounting({ costUsd: 0.25 });
    const router = new ModelRouter({ roster: [priced], clients: { e: model }, accounting, events: new MemoryEventSink(), clock });
    await accounting.run(new NodeAccount('n', 10_000_000), async () => {
      await router.call('worker', { sessionId: 's', messages: [] }); // $0.13
      // $0.12 left: the output ceiling follows the money, not the tokens.
      await router.call('worker', { sessionId: 's', messages: [] }); // $0.26
      expect(model.requests[1]!.maxTokens).toBe(Math.floor(((0.25 - 0.13 - (1 * 10) / 1e6) * 1e6) / 30));
      await expect(router.call('worker', { sessionId: 's', messages: [] })).rejects.toThrow(/session s spent \$0\.2600 of its \$0\.25 cost ceiling/);
      // Another session is not held back by this one's ceiling.
      await router.call('worker', { sessionId: 't', messages: [] });
    });
    expect(model.requests).toHaveLength(3);
  });
});

describe('ModelRouter: what a call carries and what ends the run', () => {
  it('puts the node, session and attempt on every request', async () => {
    const model = new ScriptedModel({ worker: () => ({ content: 'x' }) });
    const accounting = new Accounting();
    const router = new ModelRouter({ roster: ROSTER, clients: { e: model }, accounting, events: new MemoryEventSink(), clock: { now: () => new Date(0), sleep: async () => undefined } });
    await accounting.run(new NodeAccount('root.2', 100_000), () => accounting.inAttempt(2, () => router.call('worker', { sessionId: 'root.2/worker/2', messages: [] })));
    expect(model.requests[0]).toMatchObject({ nodeId: 'root.2', sessionId: 'root.2/worker/2', attempt: 2, role: 'worker' });
  });

  it('latches a failure true of every call: later calls, on any node, fail at once without reaching the endpoint', async () => {
    const model = new ScriptedModel({ worker: () => Promise.reject(new ModelConfigurationError('a-m', 'HTTP 401: bad key')) });
    const { router, accounting } = setup(model);
    await expect(accounting.run(new NodeAccount('x', 1000), () => router.call('worker', { sessionId: 's', messages: [] }))).rejects.toBeInstanceOf(ModelConfigurationError);
    await expect(accounting.run(new NodeAccount('y', 1000), () => router.call('worker', { sessionId: 't', messages: [] }))).rejects.toBeInstanceOf(ModelConfigurationError);
    expect(model.requests).toHaveLength(1);
  });

  it('cools a model at once when the server asks for a wait longer than the cooldown', async () => {
    const model = new ScriptedModel({ worker: (req) => (req.model === 'a-m' ? Promise.reject(new ModelRateLimitedError('a-m', 3_600_000)) : { content: req.model }) });
    const { router, run, now } = setup(model);
    await run(() => router.call('worker', { sessionId: 's', messages: [] }));
    expect(router.candidates('worker').map((m) => m.name)).toEqual(['a2', 'a']);
    now.t += 61_000;
    expect(router.candidates('worker').at(-1)!.name).toBe('a');
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

  it('re-asks a reply cut off at the length limit, saying so, even when a JSON object could be dug out of it', async () => {
    let n = 0;
    const model = new ScriptedModel({ checker: () => (++n === 1 ? { content: '{"n": 1} and then {"n": 2, "m"', finishReason: 'length' } : { content: '{"n": 2}' }) });
    const { router, run } = setup(model);
    const out = await run(() => askStructured(router, 'checker', Shape, { sessionId: 's', messages: [{ role: 'user', content: 'go' }] }));
    expect(out.value).toEqual({ n: 2 });
    const reask = model.requests[1]!.messages.at(-1)!;
    expect('content' in reask && reask.content).toBe('Your reply could not be used: it was cut off at the length limit before it was complete. Reply again with only the JSON object the task asks for, shorter.');
  });

  it('fails with the reason when a reply is cut off twice', async () => {
    const model = new ScriptedModel({ checker: () => ({ content: '{"n": 1}', finishReason: 'length' }) });
    const { router, run } = setup(model);
    await expect(run(() => askStructured(router, 'checker', Shape, { sessionId: 's', messages: [] }))).rejects.toThrowErrorMatchingInlineSnapshot(
      `[StructuredOutputError: checker returned unreadable output twice: it was cut off at the length limit before it was complete]`,
    );
  });

  it('throws after a second unreadable reply instead of inventing a fallback value', async () => {
    const model = new ScriptedModel({ checker: () => json({ wrong: true }) });
    const { router, run } = setup(model);
    await expect(run(() => askStructured(router, 'checker', Shape, { sessionId: 's', messages: [] }))).rejects.toMatchObject({ code: 'structured_output_unreadable' });
    expect(model.requests).toHaveLength(2);
  });
});
