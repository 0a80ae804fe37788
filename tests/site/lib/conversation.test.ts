import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDirectory, TranscriptLine, TranscriptRecorder, systemClock, type ChatMessage, type ModelRequest } from '../../../engine/index.js';
import { conversation } from '../../../site/src/lib/conversation.js';
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

const said = (blocks: ReturnType<typeof conversation>['blocks']) =>
  blocks.map((b) => (b.kind === 'message' ? `${b.role}:${b.text}` : b.kind === 'reply' ? `reply:${b.text}` : b.kind === 'note' ? 'note' : b.kind));

describe('conversation', () => {
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
