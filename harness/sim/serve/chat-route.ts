import type { IncomingMessage, ServerResponse } from 'node:http';
import { CALL_HEADER, decodeCallHeader, type ModelRequest, type ModelResponse } from '../../../engine/index.js';
import { SIMULATED_TAG, type SimPopulation } from '../population/sim-population.js';
import { SimPopulationError } from '../population/sim-world.js';
import { checkCapabilities } from './capabilities.js';
import { callKey } from './fault-draws.js';
import type { FaultDecision } from './fault-injector.js';
import { answerProbe } from './probe-answerer.js';
import { promptText, promptTokens } from './prompt-text.js';
import { SimRequestRefusedError } from './serve-errors.js';
import { sendJson, type ServerState } from './server-state.js';
import { ChatCompletionBody, bodyProblems, completionBody, errorBody, requestFromWire } from './wire-request.js';

/**
 * Largest request body read: 32 MiB. A simulated conversation carries the whole corpus a few
 * times over (every write_file, every read_file result), far below this; anything near it is
 * not a chat request, and reading it whole would only let a client spend the server's memory.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** A well-formed call: the request as the engine made it, its key, the population that answers it, and its prompt as the server reads it. */
interface Call {
  request: ModelRequest;
  key: string;
  population: Pick<SimPopulation, 'complete'>;
  /** The prompt serialized (prompt-text.ts): what caching and the token estimate read. */
  prompt: string;
}

/** The cell a sweep's preflight names: its one-token warm-up call, answered "ok" before any world is built. */
export const PREFLIGHT_CELL = 'preflight';

/** The cell `harness models` names in its capability probes: answered by probe-answerer.ts, never by a world. */
export const PROBE_CELL = 'probe';

/** Answers the warm-up: SIMULATED, one token each way, counted like any call. */
const WARM_UP: Pick<SimPopulation, 'complete'> = {
  complete: async (request) => ({ content: 'ok', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0 }, model: request.model, finishReason: 'stop' }),
};

const refused = (message: string, status: 400 | 413 = 400) => new SimRequestRefusedError(status, 'invalid_request_error', message);

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw refused(`the request body is above ${MAX_BODY_BYTES} bytes (32 MiB); no chat request of the engine is near that`, 413);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Reads and checks one request: JSON body, call header, a served model and cell. Throws SimRequestRefusedError. */
async function readCall(state: ServerState, req: IncomingMessage): Promise<Call> {
  if (req.method !== 'POST') throw new SimRequestRefusedError(405, 'invalid_request_error', '/v1/chat/completions takes POST');
  const text = await readBody(req);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw refused(`the request body is not JSON (${text.length} characters)`);
  }
  const body = ChatCompletionBody.safeParse(json);
  if (!body.success) throw refused(bodyProblems(body.error));
  const header = req.headers[CALL_HEADER];
  let identity;
  try {
    identity = decodeCallHeader(typeof header === 'string' ? header : undefined);
  } catch (error) {
    throw refused((error as Error).message);
  }
  const served = state.populations.models;
  if (!served.includes(body.data.model)) {
    const hint = body.data.model.includes(SIMULATED_TAG) ? '' : `; simulated model ids keep their ${SIMULATED_TAG} tag over HTTP, so name it so in the provider configuration (model: "${served[0]}")`;
    throw new SimRequestRefusedError(404, 'invalid_request_error', `The model ${JSON.stringify(body.data.model)} does not exist here: this is the SIMULATED provider, serving ${served.join(', ')}${hint}`, 'model_not_found');
  }
  checkCapabilities(state.capabilities, body.data);
  const population = identity.cell === PREFLIGHT_CELL ? WARM_UP : identity.cell === PROBE_CELL ? { complete: answerProbe } : await state.populations.forCell(identity.cell);
  const request = requestFromWire(body.data, identity);
  return { request, key: callKey(identity.cell, identity.session, request.messages.length), population, prompt: promptText(request) };
}

/**
 * The population's answer with the usage the server reports. Without caching, the population's
 * own (equal to the in-process run's). With caching, prompt tokens are the server's count of the
 * prompt (characters / 4, what a tokenizer sees, tool outputs included), so the cached prefix is
 * measured on the same scale and never exceeds it; completion tokens stay the population's.
 */
async function answerWithUsage(state: ServerState, call: Call): Promise<ModelResponse> {
  const response = await call.population.complete(call.request);
  if (!state.cache) return response;
  const inputTokens = promptTokens(call.prompt);
  const cachedTokens = state.cache.lookup(call.request.model, call.prompt, inputTokens);
  state.cache.remember(call.request.model, call.prompt);
  return { ...response, usage: { ...response.usage, inputTokens, cachedTokens } };
}

/** Carries out the fault plan's decision for one call: an error reply, or the population's answer. */
async function reply(state: ServerState, res: ServerResponse, n: number, call: Call, decision: FaultDecision): Promise<void> {
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => sendJson(state, res, status, body, { ...state.injector.rateHeaders(state.now()), ...headers });
  if (decision.kind === 'http_error') {
    state.counter.outcome('server_error');
    return send(decision.status, errorBody(`SIMULATED server error: an http_error window of the fault plan answers ${decision.status}`, 'server_error'));
  }
  if (decision.kind === 'rate_limited') {
    state.counter.outcome(decision.why);
    const why = decision.why === 'drawn' ? 'this try was drawn for a 429 by the fault plan (rate_limit)' : `the fault plan's limits.${decision.why} bucket is empty`;
    // Fractional seconds in Retry-After, as some providers send; retry-after-ms for clients that read it first.
    const headers = { 'retry-after': String(decision.retryAfterS), 'retry-after-ms': String(Math.round(decision.retryAfterS * 1000)) };
    return send(429, errorBody(`SIMULATED rate limit: ${why}; try again in ${decision.retryAfterS} s`, 'rate_limit_error', 'rate_limit_exceeded'), headers);
  }
  const response = await answerWithUsage(state, call);
  // Counted as paid once the population answered, whether or not the client is still there: a provider bills the same way.
  state.injector.noteAnswered(decision, response.usage.inputTokens + response.usage.outputTokens, state.now());
  state.counter.outcome('answered', call.key);
  state.counter.tokens(response.usage);
  send(200, completionBody(response, `chatcmpl-sim-${n}`, Math.floor(state.now() / 1000)));
}

/**
 * `POST /v1/chat/completions`: counts the request (windows start on counts), refuses a
 * malformed one with a 400/404 naming the fix, then lets the fault plan decide (latency, a 5xx
 * burst, a 429 from a drawn refusal or an empty bucket) and otherwise answers with the SIMULATED
 * population, exactly as in process (the probe cell by the probe answerer). Every reply carries
 * the x-ratelimit-* headers when the plan's limits send them.
 * During an outage a request on a connection opened before it is reset, as a dropped front end would.
 */
export async function answerChat(state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (state.listener.refusing) {
    state.counter.resetInOutage();
    req.socket.destroy();
    return;
  }
  const n = state.counter.receive();
  for (const starting of state.injector.received(n, state.now())) void state.outages.enter(starting.forMs, `window ${starting.index + 1}, after_requests`);
  let call: Call;
  try {
    call = await readCall(state, req);
  } catch (error) {
    if (!(error instanceof SimRequestRefusedError)) throw error;
    state.counter.outcome('bad_request');
    return sendJson(state, res, error.status, errorBody(error.message, error.type, error.wireCode, error.param), state.injector.rateHeaders(state.now()));
  }
  const decision = state.injector.decide(n, { call: call.key, seen: state.counter.see(call.key) }, state.now(), promptTokens(call.prompt));
  if (decision.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.latencyMs));
  try {
    await reply(state, res, n, call, decision);
  } catch (error) {
    // A call the population's model cannot answer (a node it never planned) is refused, not a server failure.
    if (!(error instanceof SimPopulationError)) throw error;
    state.counter.outcome('bad_request');
    sendJson(state, res, 400, errorBody(`the SIMULATED population cannot answer this call: ${error.message}`, 'invalid_request_error'), state.injector.rateHeaders(state.now()));
  }
}
