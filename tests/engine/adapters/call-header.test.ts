import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { CALL_HEADER, OpenAIModelClient, callIdentityOf, decodeCallHeader, encodeCallHeader, isLoopbackUrl, type ModelRequest, type OpenAIModelClientOptions } from '../../../engine/index.js';
import { ChatServer, completion } from '../../support/chat-server.js';

/** The x-rdh-call header: sent only when the client is told to (by default, loopback alone) and the call names its cell. */

const request = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'test-model', role: 'verifier', sessionId: 'root/verifier/1', nodeId: 'root', attempt: 2, messages: [{ role: 'user', content: 'hi' }], ...extra,
});
const named = request({ cellId: 'd2-gated-r3', arm: 'gated' });

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** The header each request carried, on a server at `host`. */
async function headersSent(host: string, requests: ModelRequest[], options: Partial<OpenAIModelClientOptions> = {}): Promise<Array<string | undefined>> {
  server = new ChatServer(() => ({ body: completion({ content: 'ok' }) }));
  const client = new OpenAIModelClient({ baseURL: await server.start(0, host), apiKey: 'k', ...options });
  for (const r of requests) await client.complete(r);
  return server.requests.map((r) => r.headers[CALL_HEADER] as string | undefined);
}

/** An address of this machine that is not loopback, for a server the client must treat as remote. */
const external = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

describe('the call header', () => {
  it('is sent by default to a loopback server, only on calls that name their cell, and decodes to the call', async () => {
    const [withIdentity, without] = await headersSent('127.0.0.1', [named, request()]);
    expect(withIdentity).toBe(encodeCallHeader(callIdentityOf(named)!));
    expect(decodeCallHeader(withIdentity)).toEqual({ cell: 'd2-gated-r3', arm: 'gated', node: 'root', role: 'verifier', attempt: 2, session: 'root/verifier/1' });
    expect(without).toBeUndefined();
  });

  it('is never sent when switched off, even to loopback and with an identity', async () => {
    expect(await headersSent('127.0.0.1', [named], { sessionHeader: false })).toEqual([undefined]);
  });

  it.skipIf(!external)('is not sent by default to a server that is not loopback, and is when switched on', async () => {
    expect(await headersSent(external!, [named])).toEqual([undefined]);
    await server?.stop();
    expect(await headersSent(external!, [named], { sessionHeader: true })).toEqual([encodeCallHeader(callIdentityOf(named)!)]);
  });

  it('defaults on for localhost, 127.0.0.0/8 and ::1 alone', () => {
    const loopback = ['http://localhost:8000/v1', 'http://LOCALHOST/v1', 'http://127.0.0.1:9/v1', 'http://127.45.6.7/v1', 'http://[::1]:8000/v1', 'http://0x7f.1/v1'];
    const remote = ['https://api.example.com/v1', 'http://10.0.0.7:8000/v1', 'http://127.0.0.1.nip.io/v1', 'http://localhost.example.com/v1', 'http://[fd00::2]/v1', 'http://128.0.0.1/v1', 'not a url'];
    expect(loopback.filter((u) => !isLoopbackUrl(u))).toEqual([]);
    expect(remote.filter((u) => isLoopbackUrl(u))).toEqual([]);
  });
});
