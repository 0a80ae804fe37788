import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDirectory, JsonlFile, TranscriptLine, TranscriptRecorder, systemClock } from '../../../engine/index.js';
import { ScriptedModel } from '../../support/scripted-model.js';

describe('JsonlFile: one writer per file', () => {
  it('never tears or interleaves lines under heavy concurrency', async () => {
    const file = new JsonlFile(path.join(await mkdtemp(path.join(tmpdir(), 'rdh-jsonl-')), 'x.jsonl'));
    // Lines far beyond a pipe buffer, written all at once.
    await Promise.all(Array.from({ length: 400 }, (_, i) => file.append({ i, pad: String(i % 10).repeat(20_000 + i) })));
    await file.close();
    const lines = (await readFile(file.file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(400);
    const seen = lines.map((l) => JSON.parse(l) as { i: number; pad: string });
    expect(seen.every((v) => v.pad === String(v.i % 10).repeat(20_000 + v.i))).toBe(true);
    expect(new Set(seen.map((v) => v.i)).size).toBe(400);
  });
});

describe('TranscribingModelClient', () => {
  it('writes every request and response of a session to its own file, keyed by the session id', async () => {
    const dir = new JsonlDirectory(await mkdtemp(path.join(tmpdir(), 'rdh-tx-')));
    const model = new ScriptedModel({ worker: () => ({ content: 'ok', model: 'answered-model' }) });
    const client = new TranscriptRecorder(dir, systemClock).wrap(model);
    await Promise.all(
      ['root/worker/1', 'root.1/worker/1', 'root/worker/1'].map((sessionId) =>
        client.complete({ model: 'asked-model', role: 'worker', sessionId, nodeId: sessionId.split('/')[0]!, attempt: 1, messages: [{ role: 'user', content: 'hi' }] }),
      ),
    );
    await dir.close();
    const rootLines = (await readFile(dir.file('root/worker/1').file, 'utf8')).trim().split('\n').map((l) => TranscriptLine.parse(JSON.parse(l)));
    expect(rootLines.map((l) => `${l.type}:${l.model}`)).toEqual(['request:asked-model', 'request:asked-model', 'response:answered-model', 'response:answered-model']);
  });
});
