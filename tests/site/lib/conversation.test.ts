import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDirectory, TranscriptLine, TranscriptRecorder, systemClock, type ChatMessage, type ModelRequest } from '../../../engine/index.js';
import { callIndex, conversation, paginate, type Block } from '../../../site/src/lib/conversation.js';
import { ScriptedModel } from '../../support/scripted-model.js';

/** Lines as the engine's recorder writes them, for a session whose requests are `histories`. */
async function recorded(histories: ChatMessage[][], replies: string[]): Promise<TranscriptLine[]> {
  const dir = new JsonlDirectory(await mkdtemp(path.join(tmpdir(), 'rdh-conv-')));
  const tx = new TranscriptRecorder(dir, systemClock);
  let i = 0;
  const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: replies[i++]! }) }));
  for (const messages of histories) await client.complete({ model: 'm', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, messages } satisfies ModelRequest);
  await tx.close();
  return (await readFile(dir.file('s').file, 'utf8')).trim().split('\n').map((l) => TranscriptLine.parse(JSON.parse(l)));
}

const text = (b: Block): string => ('body' in b ? b.body.map((s) => (s.kind === 'text' ? s.text : `[${s.key}]`)).join('') : '');
const said = (blocks: ReturnType<typeof conversation>['blocks']) =>
  blocks.map((b) => (b.kind === 'message' ? `${b.role}:${text(b)}` : b.kind === 'reply' ? `reply:${text(b)}` : b.kind === 'note' ? 'note' : b.kind));

const at = { ts: '2026-01-02T03:04:05.000Z', version: 3, sessionId: 's', nodeId: 'root', role: 'worker', attempt: 1, model: 'm' } as const;
const request = (call: number, sent: number, added: ChatMessage[]): TranscriptLine =>
  TranscriptLine.parse({ ...at, type: 'request', call, sent, added, tools: ['read_file'], json: false, maxTokens: null, shape: 'x' });
const response = (call: number, content: string | null, toolCalls: Array<{ id: string; name: string; arguments: string }>): TranscriptLine =>
  TranscriptLine.parse({ ...at, type: 'response', call, content, toolCalls, usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0 }, usageNote: null, finishReason: 'stop', latencyMs: 1 });

/** A session that reads two files in one reply, then finishes. */
function twoReads(): TranscriptLine[] {
  const calls = [
    { id: 'call_a', name: 'read_file', arguments: JSON.stringify({ path: 'a.py' }) },
    { id: 'call_b', name: 'read_file', arguments: JSON.stringify({ path: 'b.py' }) },
  ];
  return [
    request(0, 0, [{ role: 'system', content: 'read' }, { role: 'user', content: 'go' }]),
    response(0, null, calls),
    request(1, 2, [{ role: 'assistant', content: null, toolCalls: calls }, { role: 'tool', toolCallId: 'call_a', content: 'A' }, { role: 'tool', toolCallId: 'call_b', content: 'B' }]),
    response(1, 'done', []),
  ];
}

describe('conversation', () => {
  it('puts each tool result directly under its call, naming the call\'s id, tool and anchor', () => {
    const { blocks } = conversation(twoReads());
    expect(blocks.map((b) => (b.kind === 'tool_call' ? `call:${b.id}:${b.summary}` : b.kind === 'message' ? `${b.role}:${text(b)}` : b.kind))).toEqual([
      'system:read', 'user:go', 'reply', 'call:call_a:path: a.py', 'tool:A', 'call:call_b:path: b.py', 'tool:B', 'reply',
    ]);
    const results = blocks.filter((b) => b.kind === 'message' && b.role === 'tool');
    const calls = blocks.filter((b) => b.kind === 'tool_call');
    expect(results.map((r) => r.kind === 'message' && r.answers)).toEqual([
      { id: 'call_a', name: 'read_file', summary: 'path: a.py', anchor: calls[0]!.anchor },
      { id: 'call_b', name: 'read_file', summary: 'path: b.py', anchor: calls[1]!.anchor },
    ]);
  });

  it('gives every block an anchor of its own, in reading order', () => {
    const { blocks } = conversation(twoReads());
    expect(blocks.map((b) => b.anchor)).toEqual(blocks.map((_, i) => `m${i + 1}`));
  });

  it('leaves a result whose call was never shown where it stands, with its call id', () => {
    const { blocks } = conversation([request(0, 0, [{ role: 'user', content: 'go' }, { role: 'tool', toolCallId: 'call_z', content: 'Z' }])]);
    expect(said(blocks)).toEqual(['user:go', 'tool:Z']);
    expect(blocks[1]?.kind === 'message' && blocks[1].answers).toEqual({ id: 'call_z', name: null, summary: '', anchor: null });
  });

  it('lists every call with the page its anchor and its result are on, across pages', () => {
    const { blocks } = conversation(twoReads());
    const pages = paginate(blocks, 1);
    const index = callIndex(pages);
    expect(index.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    for (const c of index) {
      expect(pages[c.page - 1]!.some((b) => b.anchor === c.anchor && b.kind === 'tool_call' && b.id === c.id)).toBe(true);
      expect(pages[c.result!.page - 1]!.some((b) => b.anchor === c.result!.anchor && b.kind === 'message' && b.answers?.id === c.id)).toBe(true);
    }
    expect(new Set(index.map((c) => c.page)).size).toBe(2);
  });

  it('shows every message once, from lines that store only what each request added, and never the echoed reply again', async () => {
    const system: ChatMessage = { role: 'system', content: 'be brief' };
    const h1: ChatMessage[] = [system, { role: 'user', content: 'goal' }];
    const h2: ChatMessage[] = [...h1, { role: 'assistant', content: 'first' }, { role: 'user', content: 'go on' }];
    const h3: ChatMessage[] = [...h2, { role: 'assistant', content: 'second' }, { role: 'user', content: 'finish' }];
    const { blocks, totals } = conversation(await recorded([h1, h2, h3], ['first', 'second', 'third']));
    expect(said(blocks)).toEqual(['system:be brief', 'user:goal', 'reply:first', 'user:go on', 'reply:second', 'user:finish', 'reply:third']);
    expect(totals.calls).toBe(3);
  });

  it('says so when a request rewrites the history, and shows it again from where it differs', async () => {
    const h1: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'a' }];
    const h2: ChatMessage[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'A' }];
    expect(said(conversation(await recorded([h1, h2], ['x', 'y'])).blocks)).toEqual(['system:s', 'user:a', 'reply:x', 'note', 'user:A', 'reply:y']);
  });

  it('says so when a request line is missing, rather than inventing the history', async () => {
    const h1: ChatMessage[] = [{ role: 'user', content: 'a' }];
    const h2: ChatMessage[] = [...h1, { role: 'assistant', content: 'x' }, { role: 'user', content: 'b' }];
    const lines = (await recorded([h1, h2], ['x', 'y'])).filter((l) => l.call !== 0);
    expect(said(conversation(lines).blocks)).toEqual(['note', 'assistant:x', 'user:b', 'reply:y']);
  });

  it('shows a resumed session\'s calls made again after a note, with the history they were made with', async () => {
    const h0: ChatMessage[] = [{ role: 'user', content: 'goal' }];
    const first = await recorded([h0, [...h0, { role: 'assistant', content: 'x' }, { role: 'user', content: 'ran in 0.3s' }]], ['x', 'y']);
    const dir = new JsonlDirectory(await mkdtemp(path.join(tmpdir(), 'rdh-conv-')));
    const tx = new TranscriptRecorder(dir, systemClock);
    tx.resume('s', 1, h0);
    const client = tx.wrap(new ScriptedModel({ worker: () => ({ content: 'z' }) }));
    await client.complete({ model: 'm', role: 'worker', sessionId: 's', nodeId: 'root', attempt: 1, messages: [...h0, { role: 'assistant', content: 'x' }, { role: 'user', content: 'ran in 0.9s' }] });
    await tx.close();
    const again = (await readFile(dir.file('s').file, 'utf8')).trim().split('\n').map((l) => TranscriptLine.parse(JSON.parse(l)));
    expect(said(conversation([...first, ...again]).blocks)).toEqual(['user:goal', 'reply:x', 'user:ran in 0.3s', 'reply:y', 'note', 'user:ran in 0.9s', 'reply:z']);
  });
});
