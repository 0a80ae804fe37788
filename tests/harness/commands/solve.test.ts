import { mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { NodeResult, TranscriptLine } from '../../../engine/index.js';
import { runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { ChatServer } from '../../support/chat-server.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { call, json, taskOf } from '../../support/scripted-model.js';
import { wireResponder } from '../../support/wire-script.js';

const GOAL = 'Write a script that deletes files in /data older than 30 days and emails a report to the admin';

const server = new ChatServer(
  wireResponder({
    planner: () =>
      json({
        mode: 'execute',
        assumptions: ['The script is cleanup.py with a main(root, days) function', 'NEEDS HUMAN: none', 'NEEDS HUMAN: which SMTP server and admin address should the report go to?'],
        layout: null,
        subtasks: [],
      }),
    checker: () =>
      json({
        checks: [
          { id: 'deletes-old', description: 'old files go, new ones stay', command: 'mkdir -p /tmp/d && touch -d "40 days ago" /tmp/d/old && touch /tmp/d/new && python3 -c "import cleanup; cleanup.main(\'/tmp/d\', 30)" && test ! -e /tmp/d/old && test -e /tmp/d/new' },
          { id: 'reports', description: 'returns the deleted paths for the report', command: 'mkdir -p /tmp/e && touch -d "40 days ago" /tmp/e/x && python3 -c "import cleanup; assert cleanup.main(\'/tmp/e\', 30) == [\'/tmp/e/x\']"' },
          { id: 'keeps-dirs', description: 'directories are never deleted', command: 'mkdir -p /tmp/f/sub && touch -d "40 days ago" /tmp/f/sub && python3 -c "import cleanup; cleanup.main(\'/tmp/f\', 30)" && test -d /tmp/f/sub' },
        ],
      }),
    worker: (_req, turn) =>
      [
        {
          toolCalls: [
            call('write_file', {
              path: 'cleanup.py',
              content:
                'import os, time\n\n\ndef main(root, days):\n    cutoff = time.time() - days * 86400\n    gone = []\n    for name in sorted(os.listdir(root)):\n        p = os.path.join(root, name)\n        if os.path.isfile(p) and os.path.getmtime(p) < cutoff:\n            os.remove(p)\n            gone.append(p)\n    return gone\n',
            }),
          ],
        },
        { toolCalls: [call('run_checks')] },
        { toolCalls: [call('finish', { summary: 'cleanup.py deletes and reports; mail is left to configuration' })] },
      ][Math.min(turn, 2)]!,
    verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: true }) : json({ verdict: 'DONE', findings: [] })),
    drift_judge: () => json({ drift: 0, impossible: false, reason: '' }),
  }),
);

afterAll(() => server.stop());

describe.skipIf(!HAS_DOCKER)('harness solve, end to end against a local chat-completions server', () => {
  it('prints NEEDS_HUMAN with every check green when the planner declares a real NEEDS HUMAN assumption', async () => {
    const baseURL = await server.start();
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-solve-cli-'));
    const providers = path.join(dir, 'providers.yaml');
    await writeFile(
      providers,
      [
        'version: 1',
        'providers:',
        `  local: { base_url: "${baseURL}", api_key_env: RDH_TEST_KEY }`,
        'models:',
        '  worker-model: { provider: local, family: alpha, tier: medium, price_usd_per_million: { input: 1, output: 2, cached_input: 0.1 } }',
        '  judge-model: { provider: local, family: beta, tier: medium, roles: [verifier, reviewer] }',
        '',
      ].join('\n'),
    );
    vi.stubEnv('RDH_TEST_KEY', 'anything');
    const out = path.join(dir, 'trace');
    const io = bufferIo();
    const code = await runCli(['solve', GOAL, '--providers', providers, '--out', out, '--max-depth', '2'], io);
    expect(io.stderr()).toBe('');
    expect(code).toBe(0);
    const text = io.stdout();
    if (process.env.SHOW_SOLVE) console.log(text);
    expect(text).toContain('VERDICT  NEEDS_HUMAN');
    expect(text).toContain('CHECKS   3/3 passed at the root');
    expect(text).toContain('HUMAN    needed: which SMTP server and admin address should the report go to?');
    expect(text).toMatch(/SPEND    [\d,]+ tokens \([\d,]+ in, [\d,]+ of them cached; [\d,]+ out\), \$0\.\d{4}/);

    const root = NodeResult.parse(JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8')));
    expect(root.checkResults.every((c) => c.passed)).toBe(true);
    expect(root.contributorFamilies).toEqual(['alpha']);
    // Every session's transcript is a valid JSONL file of requests and responses.
    const files = await readdir(path.join(out, 'transcripts'));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const lines = (await readFile(path.join(out, 'transcripts', f), 'utf8')).trim().split('\n');
      for (const line of lines) expect(TranscriptLine.safeParse(JSON.parse(line)).success).toBe(true);
    }
  });

  it('ends the run with exit 6 and one line when the key is refused, never printing or saving the key the server echoed', async () => {
    const key = `sk-proj-${'Zq9x'.repeat(12)}`;
    const refusing = new ChatServer(({ headers }) => ({ status: 401, body: { error: { message: `Incorrect API key provided: ${String(headers.authorization).slice(7)}`, code: 'invalid_api_key' } } }));
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-solve-key-'));
    const providers = path.join(dir, 'providers.yaml');
    await writeFile(providers, ['version: 1', 'providers:', `  local: { base_url: "${await refusing.start()}", api_key_env: RDH_REFUSED_KEY }`, 'models:', '  m: { provider: local, family: alpha }', '  j: { provider: local, family: beta }', ''].join('\n'));
    process.env.RDH_REFUSED_KEY = key;
    const io = bufferIo();
    try {
      expect(await runCli(['solve', GOAL, '--providers', providers, '--out', path.join(dir, 'trace')], io)).toBe(6);
    } finally {
      await refusing.stop();
      delete process.env.RDH_REFUSED_KEY;
    }
    expect(refusing.requests).toHaveLength(1);
    expect(io.stderr().trim().split('\n')).toHaveLength(1);
    expect(io.stderr()).toMatch(/^harness: model m refused the request: HTTP 401 \(invalid_api_key\): Incorrect API key provided: \[REDACTED known_value\]\. Check the base URL/);
    const saved = await Promise.all((await readdir(path.join(dir, 'trace'), { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => readFile(path.join(e.parentPath, e.name), 'utf8')));
    expect(saved.join('\n') + io.stdout() + io.stderr()).not.toContain(key.slice(8, 24));
  });

  it('refuses to run without a provider configuration, naming the fix', async () => {
    const io = bufferIo();
    vi.stubEnv('RDH_PROVIDERS', undefined);
    expect(await runCli(['solve', GOAL], io)).toBe(2);
    expect(io.stderr()).toMatchInlineSnapshot(`
      "harness: --providers: solve calls real models and needs a provider configuration; pass --providers FILE or set RDH_PROVIDERS (copy manifests/providers.example.yaml to start), or run the built-in simulated population with --sim.
      "
    `);
  });
});
