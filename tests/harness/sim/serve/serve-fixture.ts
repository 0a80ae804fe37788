import path from 'node:path';
import OpenAI from 'openai';
import { CALL_HEADER, OpenAIModelClient, SecretCatalogue, encodeCallHeader, parseCompletion, type CallIdentity, type ModelRequest, type ModelResponse } from '../../../../engine/index.js';
import { REPO_ROOT, loadManifest, startSimServer, type FaultPlan, type LoadedManifest, type SimServer } from '../../../../harness/index.js';
import { ChatServer, completion } from '../../../support/chat-server.js';

/** The manifest the server serves by default, loaded once per test file. */
export const SMOKE_HTTP: LoadedManifest = await loadManifest(path.relative(process.cwd(), path.join(REPO_ROOT, 'manifests', 'smoke-http.yaml')));
export const EXECUTOR = 'sim-executor (SIMULATED)';
export const REVIEWER = 'sim-reviewer (SIMULATED)';

/** Starts a SIMULATED server on a free port, its log kept for the test. */
export async function serve(faults?: FaultPlan, extra: { manifest?: LoadedManifest; now?: () => number } = {}): Promise<SimServer & { logged: string[] }> {
  const logged: string[] = [];
  const server = await startSimServer({ port: 0, manifest: extra.manifest ?? SMOKE_HTTP, ...(faults ? { faults } : {}), ...(extra.now ? { now: extra.now } : {}), log: (line) => logged.push(line) });
  return Object.assign(server, { logged });
}

/** The identity the harness would put in the header of `request`. */
export function identityOf(request: ModelRequest): CallIdentity {
  return { cell: request.cellId!, ...(request.arm ? { arm: request.arm } : {}), node: request.nodeId, role: request.role, attempt: request.attempt, session: request.sessionId };
}

/**
 * The exact body the engine's OpenAI adapter sends for `request`: captured from the real
 * OpenAIModelClient talking to a scripted server, so the wire format under test is the
 * adapter's own, not a copy of it.
 */
export async function engineBody(request: ModelRequest): Promise<Record<string, unknown>> {
  const capture = new ChatServer(() => ({ body: completion({ content: 'captured' }) }));
  const baseURL = await capture.start();
  try {
    await new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', maxRetries: 0 }).complete(request);
    return capture.requests[0]!.body;
  } finally {
    await capture.stop();
  }
}

/**
 * Sends `request` to the SIMULATED server as the engine's adapter would (its body, through the
 * real openai SDK), with the call header the harness sets, and reads the reply with the
 * adapter's own wire parser.
 */
export async function overHttp(server: SimServer, request: ModelRequest, headers: Record<string, string> = { [CALL_HEADER]: encodeCallHeader(identityOf(request)) }): Promise<ModelResponse> {
  const body = await engineBody(request);
  const sdk = new OpenAI({ baseURL: server.url, apiKey: 'x', maxRetries: 0 });
  const response = await sdk.chat.completions.create(body as unknown as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming, { headers }).asResponse();
  return parseCompletion(request, await response.text(), new SecretCatalogue());
}

/** A plain POST of a chat body, for what the SDK would refuse to send (bad JSON) and for speed in bulk. */
export async function post(server: SimServer, body: unknown, identity?: CallIdentity | string): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  // A string is sent as the header's raw value, for headers the encoder would refuse to write.
  const header: Record<string, string> = identity === undefined ? {} : { [CALL_HEADER]: typeof identity === 'string' ? identity : encodeCallHeader(identity) };
  const response = await fetch(`${server.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...header },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}

/** A minimal well-formed planner call of session `session` in cell cap1-rep1-gated. */
export function plannerCall(session: string, extra: Partial<CallIdentity> = {}): { body: Record<string, unknown>; identity: CallIdentity } {
  return {
    body: { model: EXECUTOR, messages: [{ role: 'system', content: 'plan' }, { role: 'user', content: '## Task: build sqlcsv' }], temperature: 0 },
    identity: { cell: 'cap1-rep1-gated', node: 'root', role: 'planner', attempt: 1, session, ...extra },
  };
}
