import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultPlan, REPO_ROOT, loadManifest, runCli, startSimServer, type LoadedManifest, type SimServer } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { ChatServer, completion } from '../../support/chat-server.js';
import { scratch } from '../manifest/manifest-fixtures.js';

/** A key no output may ever show: set for every provider below. */
const KEY = 'sk-probe-Zq7rX2mW9tK4vB8nL3pD6hF1';
const KEY_ENV = 'RDH_MODELS_TEST_KEY';
const EXECUTOR = 'sim-executor (SIMULATED)';
const REVIEWER = 'sim-reviewer (SIMULATED)';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
let smoke: LoadedManifest;
const printed: string[] = [];
const servers: Array<{ stop(): Promise<void> }> = [];

beforeAll(async () => {
  tmp = await scratch();
  process.env[KEY_ENV] = KEY;
  smoke = await loadManifest(path.relative(process.cwd(), path.join(REPO_ROOT, 'manifests', 'smoke-http.yaml')));
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await Promise.all(servers.map((s) => s.stop()));
  await tmp.cleanup();
});

async function serve(plan: unknown, manifest = smoke): Promise<SimServer> {
  const server = await startSimServer({ port: 0, manifest, faults: FaultPlan.parse(plan), log: () => undefined });
  servers.push(server);
  return server;
}

interface Model {
  key: string;
  model: string;
  family?: string;
}

/** A provider configuration with one provider per entry of `providers`, written to the scratch folder. */
async function config(name: string, providers: Record<string, { url: string; models: Model[]; extra?: string }>): Promise<string> {
  const lines = ['version: 1', 'providers:'];
  for (const [p, { url, extra }] of Object.entries(providers)) lines.push(`  ${p}:`, `    base_url: ${url}`, `    api_key_env: ${KEY_ENV}`, ...(extra ? [`    ${extra}`] : []));
  lines.push('models:');
  for (const [p, { models }] of Object.entries(providers)) {
    for (const m of models) lines.push(`  ${m.key}:`, `    provider: ${p}`, `    model: ${JSON.stringify(m.model)}`, ...(m.family ? [`    family: ${m.family}`] : []));
  }
  return tmp.write(name, `${lines.join('\n')}\n`);
}

const SIM_MODELS: Model[] = [
  { key: 'sim-executor', model: EXECUTOR, family: 'sim-alpha' },
  { key: 'sim-reviewer', model: REVIEWER, family: 'sim-beta' },
];

/** Runs `harness models` in memory; ports, scratch paths and latency figures masked so snapshots hold. */
async function models(file: string, ...flags: string[]) {
  const io = bufferIo();
  const code = await runCli(['models', '--providers', file, ...flags], io);
  printed.push(io.stdout(), io.stderr());
  const clean = (text: string) =>
    text
      .replaceAll(tmp.dir, '<tmp>')
      .replaceAll(path.relative(process.cwd(), tmp.dir), '<tmp>')
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
      .replace(/\b\d+ ms$/gm, '<n> ms')
      // What remains and when it resets moves with the clock; the names and limits do not.
      .replace(/(ratelimit-(?:remaining|reset)-[a-z-]+)=[^,\n]+/g, '$1=<v>');
  return { code, stdout: clean(io.stdout()), stderr: clean(io.stderr()), raw: io.stdout() };
}

/** Every switch on: limits with headers, caching by prefix, tools and JSON mode. */
const ALL_ON = { version: 2, seed: 1, limits: { requests_per_minute: 6000, tokens_per_minute: 50_000_000, headers: true }, caching: {}, capabilities: { tools: true, json_mode: true } };
/** Tools, JSON mode, caching and rate-limit headers off; the limits still hold. */
const ALL_OFF = { version: 2, seed: 1, limits: { requests_per_minute: 6000, headers: false }, capabilities: { tools: false, json_mode: false } };

describe('harness models against the SIMULATED server', () => {
  it('names every capability of a server that has them all: listed, tools, json, caching with its share, rate-limit headers', async () => {
    const server = await serve(ALL_ON);
    const file = await config('on.yaml', { simhttp: { url: server.url, models: SIM_MODELS } });
    const { code, stdout, stderr } = await models(file);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatchInlineSnapshot(`
      "harness models: <tmp>/on.yaml (each model probed with 5 small calls; nothing is written)

        provider simhttp  http://127.0.0.1:<port>/v1  GET /models: 2 id(s)

        provider  model         id                        family     listed  tools  json  caching  rate-limit headers  latency
        simhttp   sim-executor  sim-executor (SIMULATED)  sim-alpha  yes     yes    yes   yes 95%  6                   <n> ms
        simhttp   sim-reviewer  sim-reviewer (SIMULATED)  sim-beta   yes     yes    yes   yes 95%  6                   <n> ms

        rate-limit headers (the last reply that carried any):
          simhttp/sim-executor: x-ratelimit-limit-requests=6000, x-ratelimit-limit-tokens=50000000, x-ratelimit-remaining-requests=<v>, x-ratelimit-remaining-tokens=<v>, x-ratelimit-reset-requests=<v>, x-ratelimit-reset-tokens=<v>
          simhttp/sim-reviewer: x-ratelimit-limit-requests=6000, x-ratelimit-limit-tokens=50000000, x-ratelimit-remaining-requests=<v>, x-ratelimit-remaining-tokens=<v>, x-ratelimit-reset-requests=<v>, x-ratelimit-reset-tokens=<v>

      every configured id is served and answered (2 model(s)); exit 0
      "
    `);
  });

  it('names each capability absent when the server has tools, JSON mode, caching and headers switched off, and still exits 0', async () => {
    const server = await serve(ALL_OFF);
    const file = await config('off.yaml', { simhttp: { url: server.url, models: SIM_MODELS } });
    const { code, stdout, stderr } = await models(file);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatchInlineSnapshot(`
      "harness models: <tmp>/off.yaml (each model probed with 5 small calls; nothing is written)

        provider simhttp  http://127.0.0.1:<port>/v1  GET /models: 2 id(s)

        provider  model         id                        family     listed  tools   json    caching  rate-limit headers  latency
        simhttp   sim-executor  sim-executor (SIMULATED)  sim-alpha  yes     no [1]  no [2]  no [3]   none                <n> ms
        simhttp   sim-reviewer  sim-reviewer (SIMULATED)  sim-beta   yes     no [4]  no [5]  no [6]   none                <n> ms

        [1] simhttp/sim-executor tools: refused: HTTP 400 SIMULATED: model "sim-executor (SIMULATED)" does not support tools (the fault plan's capabilities.tools is false)
        [2] simhttp/sim-executor json: refused: HTTP 400 SIMULATED: response_format json_object is not supported with model "sim-executor (SIMULATED)" (the fault plan's capabilities.json_mode is false)
        [3] simhttp/sim-executor caching: 0 of 2297 prompt tokens cached on the second call
        [4] simhttp/sim-reviewer tools: refused: HTTP 400 SIMULATED: model "sim-reviewer (SIMULATED)" does not support tools (the fault plan's capabilities.tools is false)
        [5] simhttp/sim-reviewer json: refused: HTTP 400 SIMULATED: response_format json_object is not supported with model "sim-reviewer (SIMULATED)" (the fault plan's capabilities.json_mode is false)
        [6] simhttp/sim-reviewer caching: 0 of 2297 prompt tokens cached on the second call

      every configured id is served and answered (2 model(s)); exit 0
      "
    `);
  });

  it('--json holds the same facts as the table, and parses', async () => {
    const server = await serve(ALL_OFF);
    const file = await config('json.yaml', { simhttp: { url: server.url, models: SIM_MODELS } });
    const { code, raw } = await models(file, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(raw) as { exit: number; providers: Array<{ name: string; listed_count: number; models: Array<Record<string, { status: string } | unknown>> }> };
    expect(report.exit).toBe(0);
    expect(report.providers.map((p) => [p.name, p.listed_count])).toEqual([['simhttp', 2]]);
    const facts = report.providers[0]!.models.map((m) => ({
      key: m.key,
      listed: m.listed,
      answer: (m.answer as { status: string }).status,
      tools: (m.tools as { status: string }).status,
      json: (m.json as { status: string }).status,
      caching: (m.caching as { status: string }).status,
      headers: Object.keys(m.rate_limit_headers as object).length,
      latency: typeof m.latency_ms,
    }));
    expect(facts).toEqual(
      ['sim-executor', 'sim-reviewer'].map((key) => ({ key, listed: true, answer: 'yes', tools: 'no', json: 'no', caching: 'no', headers: 0, latency: 'number' })),
    );
  });

  it('flags a configured id the server does not serve, probes it no further, and exits 6', async () => {
    const server = await serve(ALL_ON);
    const file = await config('missing.yaml', { simhttp: { url: server.url, models: [SIM_MODELS[0]!, { key: 'absent', model: 'sim-nobody (SIMULATED)', family: 'sim-gamma' }] } });
    const { code, stdout } = await models(file);
    expect(code).toBe(6);
    const lines = stdout.split('\n');
    expect(lines.find((l) => l.includes('  absent  '))).toMatch(/NO \[1\]\s+-\s+-\s+-\s+none\s+-$/);
    expect(lines.filter((l) => l.startsWith('  [1] '))).toEqual([`  [1] simhttp/absent id: "sim-nobody (SIMULATED)" is not served here (GET /models does not list it); fix models.absent.model, or its provider`]);
    expect(lines.at(-2)).toBe('1 configured id(s) not served: fix the provider configuration (exit 6)');
    expect(server.stats().received).toBe(5);
  });

  it("flags an id whose vendor prefix disagrees with its declared family, and leaves the family as declared", async () => {
    // A served id that reads as Anthropic's: the manifest's executor renamed, so the server serves it.
    const text = (await readFile(smoke.file, 'utf8')).replace('model: sim-executor', 'model: claude-sim').replace('spec: ../spec/sqlcsv', `spec: ${path.relative(tmp.dir, path.join(REPO_ROOT, 'spec', 'sqlcsv'))}`);
    const renamed = await loadManifest(await tmp.write('claude-manifest.yaml', text));
    const server = await serve(ALL_ON, renamed);
    const file = await config('flag.yaml', { simhttp: { url: server.url, models: [{ key: 'exec', model: 'claude-sim (SIMULATED)', family: 'sim-alpha' }, { key: 'judge', model: REVIEWER, family: 'sim-beta' }] } });
    const before = await readFile(file, 'utf8');
    const { code, stdout } = await models(file);
    const json = await models(file, '--json');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines.find((l) => l.includes('  exec  '))).toContain('sim-alpha [1]');
    expect(lines.find((l) => l.includes('  judge  '))).toMatch(/ sim-beta +yes /);
    expect(lines.find((l) => l.startsWith('  [1] '))).toBe(
      '  [1] simhttp/exec family: id "claude-sim (SIMULATED)" reads as family anthropic (prefix claude), but family "sim-alpha" is declared; kept as declared: correct it by hand if the id is right',
    );
    const report = JSON.parse(json.raw) as { providers: Array<{ models: Array<{ key: string; family: string; family_flag: string | null }> }> };
    expect(report.providers[0]!.models.map((m) => [m.key, m.family, m.family_flag !== null])).toEqual([['exec', 'sim-alpha', true], ['judge', 'sim-beta', false]]);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('says an unreachable provider is unreachable in one line, probes the reachable one, and exits 3', async () => {
    const server = await serve(ALL_ON);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));
    const file = await config('down.yaml', { simhttp: { url: server.url, models: [SIM_MODELS[0]!] }, down: { url: `http://127.0.0.1:${port}/v1`, models: [{ key: 'lost', model: 'gpt-4o', family: 'openai' }] } });
    const { code, stdout } = await models(file);
    expect(code).toBe(3);
    const mentions = stdout.split('\n').filter((l) => l.includes(' down '));
    expect(mentions).toEqual(['  provider down  http://127.0.0.1:<port>/v1  GET /models: unreachable (Connection error.: fetch failed: connect ECONNREFUSED 127.0.0.1:<port> (ECONNREFUSED)); its 1 model(s) were not probed']);
    expect(stdout).toMatch(/\n {2}simhttp +sim-executor +sim-executor \(SIMULATED\) +sim-alpha +yes +yes +yes +yes /);
    expect(stdout.split('\n').at(-2)).toBe('a provider was unreachable or a probe failed: the capabilities marked error are unknown, not absent (exit 3)');
  });
});

describe('harness models: what a probe never does', () => {
  it('retries a 429 once and no more, shows each probe as an error with its reason, and never prints the key a server echoes', async () => {
    const echo = new ChatServer(({ path: route, headers }) =>
      route.endsWith('/models')
        ? { body: { object: 'list', data: [{ id: 'gpt-probe', object: 'model' }] } }
        : { status: 429, headers: { 'retry-after-ms': '1', 'x-ratelimit-remaining-requests': '0' }, body: { error: { message: `slow down, ${String(headers.authorization)}`, type: 'rate_limit_error' } } },
    );
    const url = await echo.start();
    servers.push(echo);
    const file = await config('echo.yaml', { gw: { url, models: [{ key: 'gpt', model: 'gpt-probe', family: 'openai' }] } });
    const { code, stdout, raw } = await models(file);
    expect(code).toBe(3);
    // Five probe calls (one-token, tools, json, the cache prefix once: its second is never sent), each tried twice.
    expect(echo.requests.filter((r) => r.path.endsWith('/chat/completions'))).toHaveLength(8);
    expect(stdout).toContain('[REDACTED');
    expect(stdout).toMatch(/\[1\] gw\/gpt tools: HTTP 429 .*\(after one retry of a 429: a probe retries no more\)/);
    expect(raw).toContain('gw/gpt: x-ratelimit-remaining-requests=0');
    // Listed, but no capability reads yes: each probe failed, so each is unknown.
    expect(stdout.split('\n').find((l) => l.startsWith('  gw  '))).toMatch(/^ {2}gw +gpt +gpt-probe +openai +yes +error \[1\] +error \[2\] +error \[3\] +1 +error \[4\]$/);
  });

  it('cuts a reply that stalls at the entry\'s deadline, and sends no call header where session_header is off', async () => {
    const stall = new ChatServer(({ path: route }) =>
      route.endsWith('/models') ? { body: { object: 'list', data: [{ id: 'gpt-probe', object: 'model' }] } } : { body: completion({ content: 'ok' }), cut: { after: 5, then: 'stall' } },
    );
    const url = await stall.start();
    servers.push(stall);
    const file = await config('stall.yaml', { gw: { url, models: [{ key: 'gpt', model: 'gpt-probe' }], extra: 'call_deadline_s: 0.3\n    session_header: false' } });
    const { code, stdout } = await models(file);
    expect(code).toBe(3);
    expect(stdout).toContain('[4] gw/gpt one-token call: no whole reply within the 300 ms deadline');
    expect(stall.requests.every((r) => r.headers['x-rdh-call'] === undefined)).toBe(true);
  });

  it('reads a 400 as "no" only when the plain call was answered: a server refusing every call shows every probe as an error', async () => {
    const refusing = new ChatServer(({ path: route }) =>
      route.endsWith('/models') ? { body: { object: 'list', data: [{ id: 'gpt-probe', object: 'model' }] } } : { status: 400, body: { error: { message: 'bad request', type: 'invalid_request_error' } } },
    );
    const url = await refusing.start();
    servers.push(refusing);
    const file = await config('refusing.yaml', { gw: { url, models: [{ key: 'gpt', model: 'gpt-probe' }] } });
    const { code, stdout } = await models(file);
    expect(code).toBe(3);
    expect(stdout).toContain('[1] gw/gpt tools: HTTP 400 bad request (the one-token call failed too, so this says nothing of the capability)');
    expect(stdout.split('\n').find((l) => l.startsWith('  gw  '))).toMatch(/yes +error \[1\] +error \[2\] +error \[3\] +none +error \[4\]$/);
  });

  it('marks the repeated prefix with cache_control only where the entry asks for breakpoints, and reads the share it was told', async () => {
    const cached = new ChatServer(({ path: route }) =>
      route.endsWith('/models')
        ? { body: { object: 'list', data: [{ id: 'claude-probe', object: 'model' }] } }
        : { body: completion({ content: '{"ok": true}', usage: { prompt_tokens: 2000, completion_tokens: 1, cached_tokens: 1536 } }) },
    );
    const url = await cached.start();
    servers.push(cached);
    const marked = await config('marked.yaml', { gw: { url, models: [{ key: 'c', model: 'claude-probe', family: 'anthropic' }], extra: 'cache_breakpoints: true' } });
    const { code, stdout } = await models(marked);
    expect(code).toBe(0);
    expect(stdout).toMatch(/ anthropic +yes +no \[1\] +yes +yes 77% /);
    const systems = cached.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.body.messages as Array<{ role: string; content: unknown }>)[0]!);
    expect(systems.filter((m) => m.role === 'system' && Array.isArray(m.content)).map((m) => (m.content as Array<Record<string, unknown>>)[0]!.cache_control)).toEqual([{ type: 'ephemeral' }, { type: 'ephemeral' }]);
    cached.requests.length = 0;
    await models(await config('unmarked.yaml', { gw: { url, models: [{ key: 'c', model: 'claude-probe', family: 'anthropic' }] } }));
    const plain = cached.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => (r.body.messages as Array<{ role: string; content: unknown }>)[0]!);
    expect(plain.filter((m) => m.role === 'system' && typeof m.content === 'string' && m.content.length > 8000)).toHaveLength(2);
  });

  it('reads a refused key as a configuration problem: exit 6', async () => {
    const locked = new ChatServer(() => ({ status: 401, body: { error: { message: 'invalid api key', type: 'invalid_request_error' } } }));
    const url = await locked.start();
    servers.push(locked);
    const { code, stdout } = await models(await config('locked.yaml', { gw: { url, models: [{ key: 'gpt', model: 'gpt-probe' }] } }));
    expect(code).toBe(6);
    expect(stdout).toContain('GET /models: failed (HTTP 401 invalid api key)');
    expect(stdout.split('\n').at(-2)).toBe('a key was refused: fix the provider configuration (exit 6)');
  });

  it('refuses an unset key variable before any call, naming the variable and never a value (exit 2)', async () => {
    const file = await tmp.write('nokey.yaml', `version: 1\nproviders:\n  gw:\n    base_url: http://127.0.0.1:1/v1\n    api_key_env: RDH_MODELS_UNSET_KEY\nmodels:\n  m:\n    provider: gw\n`);
    const { code, stdout, stderr } = await models(file);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toContain('environment variable RDH_MODELS_UNSET_KEY is not set');
  });

  it('printed the key in no output of this file', () => {
    expect(printed.length).toBeGreaterThan(10);
    for (const text of printed) expect(text).not.toContain(KEY);
    for (const text of printed) expect(text).not.toContain(KEY.slice(3, 20));
  });
});
