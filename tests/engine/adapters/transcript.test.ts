import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JsonlDirectory, ModelConfigurationError, SecretCatalogue, TranscribingModelClient, TranscriptLine, systemClock } from '../../../engine/index.js';
import { ScriptedModel } from '../../support/scripted-model.js';

describe('TranscribingModelClient', () => {
  it('writes the attempt and usage note of every call, and never a key, whoever echoed it', async () => {
    const key = `gw_${'Yt7p'.repeat(10)}`;
    const dir = new JsonlDirectory(await mkdtemp(path.join(tmpdir(), 'rdh-tx-')));
    const model = new ScriptedModel({
      worker: (req) => (req.attempt === 2 ? Promise.reject(new ModelConfigurationError('m', `key ${key} refused`)) : { content: `the key you sent was ${key}` }),
    });
    const client = new TranscribingModelClient(model, dir, systemClock, new SecretCatalogue([key]));
    const request = { model: 'm', role: 'worker' as const, sessionId: 'root/worker/1', nodeId: 'root', messages: [{ role: 'user' as const, content: `use ${key}` }] };
    await client.complete({ ...request, attempt: 1 });
    await expect(client.complete({ ...request, attempt: 2 })).rejects.toBeInstanceOf(ModelConfigurationError);
    await dir.close();
    const text = await readFile(dir.file('root/worker/1').file, 'utf8');
    expect(text).not.toContain(key.slice(3, 15));
    const lines = text.trim().split('\n').map((l) => TranscriptLine.parse(JSON.parse(l)));
    expect(lines.map((l) => `${l.type}:${l.attempt}`)).toEqual(['request:1', 'response:1', 'request:2', 'error:2']);
    expect(lines[1]).toMatchObject({ content: 'the key you sent was [REDACTED known_value]', usageNote: null });
    expect(lines[3]).toMatchObject({ code: 'model_configuration', message: expect.stringContaining('[REDACTED known_value]') });
  });
});
