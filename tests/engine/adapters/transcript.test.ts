import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  JsonlDirectory,
  ModelConfigurationError,
  SecretCatalogue,
  TranscriptGapError,
  TranscriptLine,
  TranscriptRecorder,
  TRANSCRIPT_VERSION,
  requestLayoutOf,
  sessionRequests,
  systemClock,
  type ChatMessage,
  type ModelRequest,
} from '../../../engine/index.js';
import { ScriptedModel } from '../../support/scripted-model.js';

async function recorder(secrets?: SecretCatalogue) {
  const dir = new JsonlDirectory(await mkdtemp(path.join(tmpdir(), 'rdh-tx-')));
  return { dir, recorder: new TranscriptRecorder(dir, systemClock, secrets) };
}

const read = async (dir: JsonlDirectory, session: string) =>
  (await readFile(dir.file(session).file, 'utf8')).trim().split('\n').map((l) => TranscriptLine.parse(JSON.parse(l)));

const ask = (sessionId: string, messages: ChatMessage[], extra: Partial<ModelRequest> = {}): ModelRequest =>
  ({ model: 'm', role: 'worker', sessionId, nodeId: 'root', attempt: 1, messages, ...extra });

describe('TranscribingModelClient', () => {
  it('writes the attempt and usage note of every call; requests and replies exactly as they were, and an error never with a key', async () => {
    const key = `gw_${'Yt7p'.repeat(10)}`;
    const { dir, recorder: tx } = await recorder(new SecretCatalogue([key]));
    const model = new ScriptedModel({
      worker: (req) => (req.attempt === 2 ? Promise.reject(new ModelConfigurationError('m', `key ${key} refused`)) : { content: `the key you sent was ${key}` }),
    });
    const client = tx.wrap(model);
    const request = ask('root/worker/1', [{ role: 'user', content: `use ${key}` }]);
    await client.complete({ ...request, attempt: 1 });
    await expect(client.complete({ ...request, attempt: 2 })).rejects.toBeInstanceOf(ModelConfigurationError);
    await tx.close();
    const lines = await read(dir, 'root/worker/1');
    expect(lines.map((l) => `${l.type}:${l.attempt}:${l.call}`)).toEqual(['request:1:0', 'response:1:0', 'request:2:1', 'error:2:1']);
    // The record is what the model was asked and said (a replay answers from it); publication is
    // guarded by make_site's scan (docs/redaction.md), an error by redaction here.
    expect(lines[0]).toMatchObject({ added: [{ role: 'user', content: `use ${key}` }] });
    expect(lines[1]).toMatchObject({ content: `the key you sent was ${key}`, usageNote: null });
    expect(lines[3]).toMatchObject({ code: 'model_configuration', message: expect.stringContaining('[REDACTED known_value]') });
    expect(JSON.stringify(lines[3])).not.toContain(key.slice(3, 15));
  });

  it('stores each message once: a request keeps only what it added, and the whole history is rebuilt from the lines', async () => {
    const { dir, recorder: tx } = await recorder();
    const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'next' }) }));
    const history: ChatMessage[] = [{ role: 'system', content: 'S'.repeat(50_000) }, { role: 'user', content: 'goal' }];
    const sentHistories: ChatMessage[][] = [];
    for (let i = 0; i < 30; i++) {
      sentHistories.push([...history]);
      const reply = await client.complete(ask('root/worker/1', [...history]));
      history.push({ role: 'assistant', content: reply.content }, { role: 'user', content: `turn ${i}` });
    }
    await tx.close();
    const bytes = (await readFile(dir.file('root/worker/1').file, 'utf8')).length;
    // Whole histories would repeat the 50,000-character system prompt on all 30 lines (1.5 MB).
    expect(bytes).toBeLessThan(50_000 * 2);
    const lines = await read(dir, 'root/worker/1');
    expect(lines.filter((l) => l.type === 'request').map((l) => l.type === 'request' && [l.sent, l.added.length])).toEqual(
      Array.from({ length: 30 }, (_, i) => (i === 0 ? [0, 2] : [2 * i, 2])),
    );
    expect(sessionRequests(lines).map((r) => r.messages)).toEqual(sentHistories);
  });

  it('stores what each call added when the caller grows one messages array in place, as the engine does', async () => {
    const { dir, recorder: tx } = await recorder();
    const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'next' }) }));
    const messages: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'goal' }];
    const histories: ChatMessage[][] = [];
    for (let i = 0; i < 3; i++) {
      histories.push([...messages]);
      const reply = await client.complete(ask('s', messages));
      messages.push({ role: 'assistant', content: reply.content }, { role: 'user', content: `turn ${i}` });
    }
    await tx.close();
    const requests = sessionRequests(await read(dir, 's'));
    expect(requests.map((r) => [r.line.sent, r.line.added.length])).toEqual([[0, 2], [2, 2], [4, 2]]);
    expect(requests.map((r) => r.messages)).toEqual(histories);
  });

  it('keeps one history and one call count for a session whose calls go to several clients (a fallback)', async () => {
    const { dir, recorder: tx } = await recorder();
    const first = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'a' }) }));
    const fallback = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'b' }) }));
    const m1: ChatMessage[] = [{ role: 'user', content: 'goal' }];
    await first.complete(ask('s', m1));
    const m2: ChatMessage[] = [...m1, { role: 'assistant', content: 'a' }, { role: 'user', content: 'more' }];
    await fallback.complete(ask('s', m2));
    await tx.close();
    const requests = sessionRequests(await read(dir, 's'));
    expect(requests.map((r) => [r.line.call, r.line.sent, r.line.added.length])).toEqual([[0, 0, 1], [1, 1, 2]]);
    expect(requests[1]!.messages).toEqual(m2);
  });

  it('stores a history that was cut or rewritten from where it differs, never as if it had grown', async () => {
    const { dir, recorder: tx } = await recorder();
    const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'x' }) }));
    const long: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'user', content: 'b' }];
    await client.complete(ask('s', long));
    const rewritten: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'B' }];
    await client.complete(ask('s', rewritten));
    await tx.close();
    const requests = sessionRequests(await read(dir, 's'));
    expect(requests[1]!.line).toMatchObject({ sent: 1, added: [{ role: 'user', content: 'B' }] });
    expect(requests[1]!.messages).toEqual(rewritten);
  });

  it('continues a resumed session in the same file, and a session resumed at call k supersedes the recorded lines from k', async () => {
    const { dir, recorder: tx } = await recorder();
    const h0: ChatMessage[] = [{ role: 'user', content: 'goal' }];
    const h1: ChatMessage[] = [...h0, { role: 'assistant', content: 'a' }, { role: 'user', content: 'tool output at 0.31s' }];
    const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'a' }) }));
    await client.complete(ask('s', h0));
    await client.complete(ask('s', h1));
    await tx.close();
    const recorded = sessionRequests(await read(dir, 's'));
    // The resume replayed call 0 from the record and goes live at call 1 (its tool output differs).
    const dir2 = new JsonlDirectory(dir.dir);
    const again = new TranscriptRecorder(dir2, systemClock);
    again.resume('s', 1, recorded[0]!.messages);
    const h1b: ChatMessage[] = [...h0, { role: 'assistant', content: 'a' }, { role: 'user', content: 'tool output at 0.52s' }];
    const h2b: ChatMessage[] = [...h1b, { role: 'assistant', content: 'b' }, { role: 'user', content: 'done?' }];
    const live = again.wrap(new ScriptedModel({ worker: () => ({ content: 'b' }) }));
    await live.complete(ask('s', h1b));
    await live.complete(ask('s', h2b));
    await again.close();
    const lines = await read(dir2, 's');
    expect(lines.filter((l) => l.type === 'request').map((l) => l.call)).toEqual([0, 1, 1, 2]);
    const requests = sessionRequests(lines);
    expect(requests.map((r) => [r.line.call, r.line.sent])).toEqual([[0, 0], [1, 1], [2, 3]]);
    expect(requests.map((r) => r.messages)).toEqual([h0, h1b, h2b]);
  });

  it('refuses to rebuild a session whose request line is missing', async () => {
    const { dir, recorder: tx } = await recorder();
    const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'x' }) }));
    const h: ChatMessage[] = [{ role: 'user', content: 'a' }];
    await client.complete(ask('s', h));
    await client.complete(ask('s', [...h, { role: 'user', content: 'b' }]));
    await tx.close();
    const lines = await read(dir, 's');
    expect(() => sessionRequests(lines.filter((l) => !(l.type === 'request' && l.call === 0)))).toThrow(TranscriptGapError);
    expect(() => sessionRequests([...lines, ...lines.filter((l) => l.call === 1).map((l) => ({ ...l, call: 3 }))])).toThrow(TranscriptGapError);
  });
});

describe('transcript format versions', () => {
  it('writes format 4, reads format 3 as well, and names the request layout each was recorded in', async () => {
    const { dir, recorder: tx } = await recorder();
    await tx.wrap(new ScriptedModel({ worker: () => ({ content: 'ok' }) })).complete(ask('v/worker/1', [{ role: 'system', content: 'p', cacheBreak: 1 }, { role: 'user', content: 'u' }]));
    await tx.close();
    const [request] = await read(dir, 'v/worker/1');
    expect(request).toMatchObject({ type: 'request', version: TRANSCRIPT_VERSION, added: [{ role: 'system', content: 'p', cacheBreak: 1 }, { role: 'user', content: 'u' }] });
    expect(TRANSCRIPT_VERSION).toBe(4);
    const v3 = { ...request!, version: 3 };
    expect(TranscriptLine.parse(v3).version).toBe(3);
    expect(TranscriptLine.safeParse({ ...request!, version: 5 }).success).toBe(false);
    expect(TranscriptLine.safeParse({ ...request!, version: 2 }).success).toBe(false);
    expect([requestLayoutOf(3), requestLayoutOf(4)]).toEqual(['task-first', 'shared-first']);
  });
});
