import { appendFile, mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDirectory, SecretCatalogue, TranscriptRecorder, systemClock, type ChatMessage, type ModelClient, type ModelRequest, type ModelResponse } from '../../../engine/index.js';
import { readTranscripts } from '../../../harness/index.js';
import { RecordedCallClient, ReplayDivergenceError, normaliseText } from '../../../harness/testing.js';

const reply = (text: string): ModelResponse => ({ content: text, toolCalls: [], usage: { inputTokens: 10, outputTokens: 2, cachedTokens: 0 }, model: 'm', finishReason: 'stop' });
const request = (sessionId: string, messages: ChatMessage[]): ModelRequest => ({ model: 'm', messages, role: 'worker', sessionId, nodeId: 'root', attempt: 1 });

/** A live client that counts its calls and answers with the call number. */
function counting(): ModelClient & { calls: ModelRequest[] } {
  const calls: ModelRequest[] = [];
  return { calls, complete: async (r) => (calls.push(r), reply(`live ${calls.length}`)) };
}

/**
 * Records a conversation of `turns` calls through the engine's TranscriptRecorder (the one
 * writer of transcripts, as record uses it), each call adding the reply and one tool result.
 */
async function recordConversation(dir: string, sessionId: string, turns: number, toolText = (i: number) => `ran in ${i * 7} ms`, secrets?: SecretCatalogue): Promise<ModelRequest[]> {
  const recorder = new TranscriptRecorder(new JsonlDirectory(dir), systemClock, secrets);
  let i = 0;
  const client = recorder.wrap({ complete: async () => reply(`answer ${i++}`) });
  const messages: ChatMessage[] = [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'build it' }];
  const sent: ModelRequest[] = [];
  for (let t = 0; t < turns; t++) {
    const r = request(sessionId, [...messages]);
    sent.push(r);
    const answer = await client.complete(r);
    messages.push({ role: 'assistant', content: answer.content }, { role: 'user', content: toolText(t) });
  }
  await recorder.close();
  return sent;
}

describe('reading transcripts back for a resume', () => {
  it('rebuilds every completed call\'s whole history and its response', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    const sent = await recordConversation(dir, 'root/worker/1', 60);
    const recorded = (await readTranscripts([dir])).get('root/worker/1')!;
    expect(recorded).toHaveLength(60);
    expect(recorded.map((c) => c.messages)).toEqual(sent.map((r) => r.messages));
    expect(recorded.map((c) => c.response.content)).toEqual(sent.map((_, i) => `answer ${i}`));
  });

  it('keeps 32 concurrent sessions apart: every line whole and in call order', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    await Promise.all(Array.from({ length: 32 }, (_, s) => recordConversation(dir, `node${s}/worker/1`, 20, (i) => 'x'.repeat(4000 + i))));
    const all = await readTranscripts([dir]);
    expect(all.size).toBe(32);
    for (const calls of all.values()) expect(calls.map((c) => c.call)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('drops a torn last line, and ends the record at a call without a response: those calls will be made again', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    await recordConversation(dir, 'root/worker/1', 3);
    const [file] = await readdir(dir);
    const whole = await readFile(path.join(dir, file!), 'utf8');
    await appendFile(path.join(dir, file!), '{"type":"request","version":3,"sessionId":"root/worker/1","call":3,"mod');
    expect((await readTranscripts([dir])).get('root/worker/1')).toHaveLength(3);
    // The request of call 2 without its response: the call in flight at a kill.
    const lines = whole.trim().split('\n');
    await appendFile(path.join(dir, 'cut.jsonl'), lines.slice(0, -1).join('\n').replaceAll('root/worker/1', 'cut/worker/1') + '\n');
    expect((await readTranscripts([dir])).get('cut/worker/1')).toHaveLength(2);
  });

  it('reads nothing from a transcript with a gap, or one that mixes sessions', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    await recordConversation(dir, 'root/worker/1', 3);
    const [file] = await readdir(dir);
    const lines = (await readFile(path.join(dir, file!), 'utf8')).trim().split('\n');
    await appendFile(path.join(dir, 'gap.jsonl'), [...lines.slice(0, 2), ...lines.slice(4)].join('\n').replaceAll('root/worker/1', 'gap/worker/1') + '\n');
    await appendFile(path.join(dir, 'mixed.jsonl'), [lines[0]!.replace('root/worker/1', 'mixed/worker/1'), lines[1]!].join('\n') + '\n');
    const all = await readTranscripts([dir]);
    expect([...all.keys()]).toEqual(['root/worker/1']);
  });
});

describe('the recorded-call client', () => {
  it('answers from the record while requests match, then goes live at the first call beyond it, and says so once', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    const sent = await recordConversation(dir, 'root/worker/1', 5);
    const live = counting();
    const switches: Array<[string, number, string]> = [];
    const client = new RecordedCallClient(live, await readTranscripts([dir]), { onSwitch: (s, k, why) => void switches.push([s, k, why]) });
    for (const r of sent) expect((await client.complete(r)).content).toMatch(/^answer /);
    expect(live.calls).toHaveLength(0);
    const next = request('root/worker/1', [...sent[4]!.messages, { role: 'assistant', content: 'answer 4' }, { role: 'user', content: 'more' }]);
    expect((await client.complete(next)).content).toBe('live 1');
    expect(switches).toEqual([['root/worker/1', 5, 'no recorded call (the session was cut here)']]);
    expect(client.counts).toEqual({ replayed: 5, live: 1 });
  });

  it('forgives timings and container ids (the documented normalisation), nothing else', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    const sent = await recordConversation(dir, 's/worker/1', 3, (i) => `container 0123456789abcdef ran in ${i * 7} ms at 2026-01-01T00:00:00Z`);
    expect(normaliseText('took 12 ms, 1.5s; id 0123456789abcdef')).toBe('took <duration>, <duration>; id <hex>');
    const retimed = sent.map((r) => ({ ...r, messages: r.messages.map((m) => (m.role === 'user' ? { ...m, content: m.content.replace(/\d+ ms/, '999 ms').replace('0123456789abcdef', 'fedcba9876543210') } : m)) }));
    const live = counting();
    const client = new RecordedCallClient(live, await readTranscripts([dir]));
    for (const r of retimed) await client.complete(r);
    expect(live.calls).toHaveLength(0);

    const changed = new RecordedCallClient(live, await readTranscripts([dir]));
    await changed.complete(sent[0]!);
    const edited = { ...sent[1]!, messages: sent[1]!.messages.map((m, i) => (i === 3 ? { ...m, content: 'a different tool result' } : m)) } as ModelRequest;
    expect((await changed.complete(edited)).content).toBe('live 1');
    // Once live, the session stays live even where the record would match again.
    expect((await changed.complete(sent[2]!)).content).toBe('live 2');
  });

  it('in strict mode (replay) a mismatch is a divergence, never a live call', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
    const sent = await recordConversation(dir, 's/worker/1', 2);
    const live = counting();
    const client = new RecordedCallClient(live, await readTranscripts([dir]), { mode: 'strict' });
    await client.complete(sent[0]!);
    await expect(client.complete({ ...sent[1]!, model: 'other' })).rejects.toBeInstanceOf(ReplayDivergenceError);
    expect(live.calls).toHaveLength(0);
  });

  it('keeps the record exact: a reply and a prompt holding a configured key, even the shortest redaction acts on, are stored and answered as they were', async () => {
    // 'anything' is the README's example key for the simulated server, and the shortest value
    // the known-value redaction looks for (MIN_KNOWN_LENGTH): redacting the record rewrote replies.
    for (const key of ['anything', `sk-proj-${'Q7w'.repeat(14)}`]) {
      const secrets = new SecretCatalogue([key]);
      const dir = await mkdtemp(path.join(tmpdir(), 'rdh-tr-'));
      const sent = await recordConversation(dir, 's/worker/1', 3, () => `ask me ${key}`, secrets);
      const text = await readFile(path.join(dir, (await readdir(dir))[0]!), 'utf8');
      expect(text).toContain(`ask me ${key}`);
      expect(text).not.toContain('[REDACTED');
      const live = counting();
      const client = new RecordedCallClient(live, await readTranscripts([dir]));
      for (const r of sent) await client.complete(r);
      expect(live.calls).toHaveLength(0);
    }
  });
});
