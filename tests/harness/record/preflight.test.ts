import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRecord } from '../../../harness/index.js';
import { ChatServer, completion, type Responder } from '../../support/chat-server.js';
import { manifestVariant } from '../../support/manifest-variant.js';
import { bufferIo, hostSandboxes, RECORD_MANIFEST } from './record-fixture.js';

/**
 * The preflight's one-token completion per pair, through the real openai SDK against a local
 * chat-completions server: it is sent before anything is spent, one per pair, and a refused key
 * fails there in seconds with exit 6 and nothing written. Then insufficient_quota on the first
 * call of the sweep gives the quota outcome with a summary (exit 5).
 */

const KEY_ENV = 'RDH_PREFLIGHT_TEST_KEY';
let server: ChatServer | undefined;
afterEach(async () => {
  await server?.stop();
  delete process.env[KEY_ENV];
});

async function setUp(responder: Responder): Promise<{ manifest: string; providers: string; out: string; dir: string }> {
  server = new ChatServer(responder);
  const url = await server.start();
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-preflight-'));
  const manifest = await manifestVariant(
    RECORD_MANIFEST,
    dir,
    {
      simulated: undefined,
      executor: { provider: 'openai-compatible', model: 'exec-model', family: 'alpha', rung: 1 },
      reviewer: { provider: 'openai-compatible', model: 'judge-model', family: 'beta', rung: 1 },
    },
    'm.yaml',
  );
  const providers = path.join(dir, 'providers.yaml');
  await writeFile(
    providers,
    ['version: 1', 'providers:', `  local: { base_url: "${url}", api_key_env: ${KEY_ENV} }`, 'models:', '  exec-model: { provider: local, model: vendor-a/exec, family: alpha }', '  judge-model: { provider: local, model: vendor-b/judge, family: beta }', ''].join('\n'),
  );
  process.env[KEY_ENV] = 'sk-test-preflight';
  return { manifest, providers, out: path.join(dir, 'run'), dir };
}

describe('harness record preflight (real openai SDK, local server)', () => {
  it('fails on a refused key at the first one-token completion, before anything is written (exit 6)', async () => {
    const s = await setUp(() => ({ status: 401, body: { error: { message: 'Incorrect API key provided', code: 'invalid_api_key' } } }));
    await expect(runRecord(s.manifest, { out: s.out, depths: [1], providers: s.providers }, bufferIo(), { sandboxes: hostSandboxes() })).rejects.toMatchObject({ code: 'model_configuration' });
    expect(server!.requests).toHaveLength(1);
    expect(server!.requests[0]!.body).toMatchObject({ model: 'vendor-a/exec', max_tokens: 1 });
    expect(await readdir(s.dir)).toEqual(['m.yaml', 'providers.yaml']);
  });

  it('sends one one-token completion per pair before the first session; insufficient_quota on the next call stops with the quota outcome and a summary (exit 5)', async () => {
    const s = await setUp(({ body }) =>
      body.max_tokens === 1 ? { body: completion({ content: 'ok', model: String(body.model) }) } : { status: 429, body: { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } } },
    );
    const result = await runRecord(s.manifest, { out: s.out, depths: [1], providers: s.providers }, bufferIo(), { sandboxes: hostSandboxes() });
    const warmups = server!.requests.filter((r) => r.body.max_tokens === 1).map((r) => r.body.model);
    expect(warmups).toEqual(['vendor-a/exec', 'vendor-b/judge']);
    // Both warm-ups came first: the sweep's own calls follow them.
    expect(server!.requests.slice(0, 2).map((r) => r.body.max_tokens)).toEqual([1, 1]);
    expect(server!.requests.length).toBeGreaterThan(2);
    expect(result.exit).toBe(5);
    expect(result.summary.stop.reason).toBe('quota');
    expect(result.summary.caveats.some((c) => c.startsWith('QUOTA'))).toBe(true);
    await expect(readFile(path.join(s.out, 'summary.json'), 'utf8')).resolves.toContain('"quota"');
  });
});
