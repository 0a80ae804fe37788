import { connect } from 'node:net';
import OpenAI from 'openai';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WORK_TOOLS, type ChatMessage, type ModelRequest, type ModelResponse } from '../../../../engine/index.js';
import { SimPopulation, simSetup, type SimServer } from '../../../../harness/index.js';
import { ServerStats, specObjective } from '../../../../harness/testing.js';
import { EXECUTOR, REVIEWER, SMOKE_HTTP, overHttp, plannerCall, post, serve } from './serve-fixture.js';

let server: (SimServer & { logged: string[] }) | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** The in-process population of cap1-rep1, built exactly as harness record builds it. */
async function inProcess(cap = 1, repetition = 1) {
  const m = SMOKE_HTTP.manifest;
  const objective = await specObjective(SMOKE_HTTP.specDir);
  const pairs = { executor: { model: m.executor.model, family: m.executor.family! }, reviewer: { model: m.reviewer.model, family: m.reviewer.family! } };
  return simSetup({ specDir: SMOKE_HTTP.specDir, params: m.simulated, maxDepth: cap, repetition, mergeAttempts: m.merge_attempts, pairing: m.pairing, requirements: objective.requirements, pairs });
}

const tools = WORK_TOOLS.map((t) => t.spec);
const base = { cellId: 'cap1-rep1-gated', attempt: 1 } as const;
const sameReply = (r: ModelResponse) => ({ content: r.content, toolCalls: r.toolCalls, usage: r.usage, model: r.model, finishReason: r.finishReason });

/** The next turn of a session: the reply as the assistant's message, and a tool result for each of its calls. */
function nextTurn(messages: ChatMessage[], reply: ModelResponse, result: (name: string, args: Record<string, unknown>) => string): ChatMessage[] {
  return [
    ...messages,
    { role: 'assistant', content: reply.content, ...(reply.toolCalls.length ? { toolCalls: reply.toolCalls } : {}) },
    ...reply.toolCalls.map((c) => ({ role: 'tool' as const, toolCallId: c.id, content: result(c.name, JSON.parse(c.arguments) as Record<string, unknown>) })),
  ];
}

describe('harness sim serve answers as the in-process population', () => {
  it('over the real openai SDK and wire parser: a planner, a leaf worker session turn by turn, its checker, a gated review, and a length cut', async () => {
    server = await serve();
    const setup = await inProcess();
    const sim = setup.clients.sim!;
    const compare = async (request: ModelRequest) => {
      const [local, remote] = [await sim.complete(request), await overHttp(server!, request)];
      expect(sameReply(remote), `${request.sessionId} with ${request.messages.length} messages`).toEqual(sameReply(local));
      expect(remote.usageNote).toBeNull();
      return local;
    };
    const planner = await compare({ ...base, model: EXECUTOR, role: 'planner', nodeId: 'root', sessionId: 'root/planner/1', json: true, maxTokens: 8000, messages: [{ role: 'system', content: 'You plan.' }, { role: 'user', content: '## Task: Build sqlcsv' }] });
    expect(JSON.parse(planner.content!).mode).toBe('split');

    const leaf = `root.${Number(setup.world.tree(null).phase.leaves[0]!.path.split('.')[1]) + 1}`;
    await compare({ ...base, model: EXECUTOR, role: 'checker', nodeId: leaf, sessionId: `${leaf}/checker/1`, json: true, messages: [{ role: 'system', content: 'You write checks.' }, { role: 'user', content: `## Task: ${leaf}` }] });
    let messages: ChatMessage[] = [{ role: 'system', content: 'You build.' }, { role: 'user', content: `## Task: ${leaf}` }];
    const worker = (extra: Partial<ModelRequest> = {}): ModelRequest => ({ ...base, model: EXECUTOR, role: 'worker', nodeId: leaf, sessionId: `${leaf}/worker/1`, tools, messages, ...extra });
    const seen: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const reply = await compare(worker());
      seen.push(...reply.toolCalls.map((c) => c.name));
      messages = nextTurn(messages, reply, (name) => (name === 'run_command' ? 'exit 0\n3 passed in 0.12s' : 'ok'));
    }
    expect([...new Set(seen)]).toEqual(['write_file', 'run_command', 'finish']);

    // The budget leaves too few tokens for the tree the worker writes: cut, like a real endpoint.
    const cut = await compare(worker({ messages: messages.slice(0, 2), maxTokens: 5 }));
    expect([cut.finishReason, cut.content, cut.usage.outputTokens]).toEqual(['length', null, 5]);

    // A gated review at the root: it reads the program files, then judges what it read.
    const files = setup.world.corpus.files;
    let review: ChatMessage[] = [{ role: 'system', content: 'You review.' }, { role: 'user', content: '## Task: review root' }];
    const reviewer = (): ModelRequest => ({ ...base, model: REVIEWER, role: 'reviewer', arm: 'gated', nodeId: 'root', sessionId: 'gated/root/reviewer/1', tools, messages: review });
    const reads = await compare(reviewer());
    expect(reads.toolCalls.every((c) => c.name === 'read_file')).toBe(true);
    review = nextTurn(review, reads, (_name, args) => files[String(args.path)] ?? '');
    const verdict = await compare(reviewer());
    expect(JSON.parse(verdict.content!)).toHaveProperty('accept');
  });

  it('answers each cell from its own (cap, repetition) world, as harness record builds one per pair', async () => {
    server = await serve();
    const plan = (cellId: string): ModelRequest => ({ ...base, cellId, model: EXECUTOR, role: 'planner', nodeId: 'root', sessionId: 'root/planner/1', json: true, messages: [{ role: 'user', content: '## Task: Build sqlcsv' }] });
    const replies = [];
    for (const [cap, repetition] of [[1, 1], [2, 1]] as const) {
      const request = plan(`cap${cap}-rep${repetition}-ungated`);
      const local = await (await inProcess(cap, repetition)).clients.sim!.complete(request);
      expect(sameReply(await overHttp(server, request))).toEqual(sameReply(local));
      replies.push(local.content);
    }
    // The two worlds plan differently, so a server answering every cell from one world would fail above.
    expect(replies[0]).not.toEqual(replies[1]);
  });

  it('lists the two tagged model ids, in the OpenAI list format', async () => {
    server = await serve();
    const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
    const ids = [];
    for await (const model of sdk.models.list()) ids.push(model.id);
    expect(ids).toEqual([EXECUTOR, REVIEWER]);
    expect(server.models).toEqual(ids);
  });

  it('refuses a model without the (SIMULATED) tag with 404 model_not_found, through the SDK', async () => {
    server = await serve();
    const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0, defaultHeaders: { 'x-rdh-call': JSON.stringify(plannerCall('s').identity) } });
    const error = (await sdk.chat.completions.create({ model: 'sim-executor', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect([error.status, error.code, error.type]).toEqual([404, 'model_not_found', 'invalid_request_error']);
    expect(error.message).toMatchInlineSnapshot(`"404 The model "sim-executor" does not exist here: this is the SIMULATED provider, serving sim-executor (SIMULATED), sim-reviewer (SIMULATED); simulated model ids keep their (SIMULATED) tag over HTTP, so name it so in the provider configuration (model: "sim-executor (SIMULATED)")"`);
  });

  it('refuses a call without a good x-rdh-call header, and a malformed body, with 400 naming the fix; the server goes on', async () => {
    server = await serve();
    const { body, identity } = plannerCall('s');
    const messages = [];
    for (const attempt of [
      () => post(server!, body),
      () => post(server!, body, '{not json'),
      () => post(server!, body, JSON.stringify({ ...identity, attempt: 0 })),
      () => post(server!, body, { ...identity, cell: 'cap9-rep1-gated' }),
      () => post(server!, '{"model": '),
      () => post(server!, { model: EXECUTOR, messages: [{ role: 'robot', content: 1 }], max_tokens: -1 }, identity),
      () => post(server!, { ...body, stream: true }, identity),
    ]) {
      const reply = await attempt();
      expect(reply.status).toBe(400);
      messages.push((reply.json.error as { message: string }).message);
    }
    expect(messages).toMatchInlineSnapshot(`
      [
        "no x-rdh-call header: the simulated provider answers only calls that name their cell (set session_header: true on the provider entry)",
        "the x-rdh-call header is not JSON",
        "the x-rdh-call header is not a call identity: attempt Too small: expected number to be >0",
        "cell cap9-rep1-gated is not in manifests/smoke-http.yaml (caps 1, 2); serve the manifest being recorded (harness sim serve --manifest FILE)",
        "the request body is not JSON (10 characters)",
        "the request body is not a chat completion request: messages.0.role: a message needs role system, user, assistant or tool; max_tokens: must be at least 1",
        "the request body is not a chat completion request: stream: streaming is not served: the engine reads whole replies; leave stream out",
      ]
    `);
    expect((await post(server, body, identity)).status).toBe(200);
    expect(server.stats()).toMatchObject({ received: 8, answered: 1, badRequests: 7, internalErrors: 0 });
  });

  it('answers an unexpected failure 500 with a generic message, logs it, and goes on serving', async () => {
    server = await serve();
    const { body, identity } = plannerCall('s');
    const spy = vi.spyOn(SimPopulation.prototype, 'complete').mockRejectedValueOnce(new TypeError('a bug with a secret-free story'));
    try {
      const failed = await post(server, body, identity);
      expect([failed.status, failed.json]).toEqual([500, { error: { message: 'the SIMULATED provider failed on this request; its terminal shows why', type: 'server_error', param: null, code: null } }]);
    } finally {
      spy.mockRestore();
    }
    expect(server.logged.join('\n')).toMatch(/failed on POST \/v1\/chat\/completions: TypeError: a bug with a secret-free story\n\s+at /);
    expect((await post(server, body, identity)).status).toBe(200);
    expect(server.stats()).toMatchObject({ internalErrors: 1, answered: 1 });
  });

  it('counts, per call key, how often each call was seen and answered; GET /_rdh/stats serves the same', async () => {
    server = await serve();
    const first = plannerCall('root/planner/1');
    const replies = [await post(server, first.body, first.identity), await post(server, first.body, first.identity)];
    const other = plannerCall('root/planner/1', { cell: 'cap2-rep1-gated' });
    replies.push(await post(server, other.body, other.identity));
    const stats = ServerStats.parse(await (await fetch(server.url.replace(/\/v1$/, '/_rdh/stats'))).json());
    expect(stats).toEqual(server.stats());
    // The same session id in another cell is another call: session ids repeat from cell to cell.
    expect(stats.calls).toEqual({ 'cap1-rep1-gated/root/planner/1#2': { seen: 2, answered: 2 }, 'cap2-rep1-gated/root/planner/1#2': { seen: 1, answered: 1 } });
    expect(stats.answered).toBe(3);
    // Token totals are what the replies reported, for benches reading the cached share and the rate.
    const usage = replies.map((r) => r.json.usage as { prompt_tokens: number; completion_tokens: number });
    expect(stats.tokens).toEqual({ prompt: usage.reduce((n, u) => n + u.prompt_tokens, 0), cached: 0, completion: usage.reduce((n, u) => n + u.completion_tokens, 0) });
  });

  it('refuses connections during an outage by hand, and answers on the same port after it', async () => {
    server = await serve();
    const { body, identity } = plannerCall('s');
    expect((await post(server, body, identity)).status).toBe(200);
    await server.outage(true);
    expect(await connectError(server.port)).toBe('ECONNREFUSED');
    const viaFetch = (await fetch(`${server.url}/models`).catch((e: unknown) => e)) as Error & { cause?: { code?: string } };
    expect(viaFetch.cause?.code).toBe('ECONNREFUSED');
    await server.outage(false);
    expect(await connectError(server.port)).toBeNull();
    expect((await post(server, body, identity)).status).toBe(200);
    expect(server.stats().outagesEntered).toBe(1);
  });
});

/** The error code a plain TCP connect to the port gets, or null when it connects. */
function connectError(port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(null)));
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}
