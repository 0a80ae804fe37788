import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT, loadManifest, runRecord, startSimServer, type FaultPlan } from '../../harness/index.js';
import type { Concurrency } from '../../harness/index.js';
import { FakeSandboxProvider, type FakeCommand } from '../support/fake-sandbox.js';
import { fakeGrade } from '../harness/record/record-fixture.js';

/**
 * One sweep of the throughput bench: `harness record` over HTTP against `startSimServer` (the
 * real openai SDK path, retries, Retry-After and, for bounds, the rate controller), with a
 * sandbox that answers every command at once (exit 0, no output: Docker never binds) and the
 * record tests' digest grade. What it returns is measured from the run folder's transcripts
 * (each answered call's time and tokens) and the server's own counters (polled, for the 429s).
 */

/** The sweep measured: one cap of the record-http population with a wide tree, so many sessions can be in flight. */
export interface SweepShape {
  cap: number;
  branching: number;
  repetitions: number;
}

export interface SweepRun {
  concurrency: Concurrency;
  faults: FaultPlan;
  shape: SweepShape;
  /** Answers in the sweep's first seconds are warm-up too (a per-minute limit binds only once a minute has been used). Default 0. */
  warmUpS?: number;
}

/** What one answered call came to, from its transcript's response line. */
interface Answer {
  atMs: number;
  tokens: number;
}

/** The server's counters at one moment. */
interface Poll {
  atMs: number;
  received: number;
  limited: number;
}

export interface SweepFigures {
  /** Answered calls in the whole sweep, and inside the steady window. */
  calls: number;
  windowCalls: number;
  windowSeconds: number;
  /** Inside the window: answered calls and tokens per minute. */
  callsPerMin: number;
  tokensPerMin: number;
  /** Tokens per answered call over the sweep. */
  tokensPerCall: number;
  /** Share of requests answered 429, inside the window and over the sweep. */
  limitedShareWindow: number;
  limitedShareAll: number;
  cellsLost: number;
  /** Calls the server answered more than once (by call key), and responses the transcripts hold twice for one (session, call). */
  paidTwiceServer: number;
  paidTwiceTranscripts: number;
  /** Server answers minus transcript responses: a call answered but never recorded would be paid again on resume. */
  unrecorded: number;
  wallSeconds: number;
}

/** The steady window leaves out the first calls (every controller starts somewhere; with `warmUpS`, also the first seconds) and the last (the sweep drains). */
export const WARM_UP_SHARE = 0.15;
export const TAIL_SHARE = 0.07;
/** The least a window may hold for its figure to count (the "at least 1,000 calls"). */
export const MIN_WINDOW_CALLS = 1000;

const KEY_ENV = 'RDH_BENCH_SIM_KEY';

async function manifestFile(dir: string, shape: SweepShape): Promise<string> {
  let text = await readFile(path.join(REPO_ROOT, 'tests/harness/record/record-http.yaml'), 'utf8');
  const edits: Array<[string, string]> = [
    ['spec: ../../../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`],
    ['depth_caps: [1, 2]', `depth_caps: [${shape.cap}]`],
    ['default: 1 #', `default: ${shape.repetitions} #`],
    ['max_sessions: 400', 'max_sessions: 1000000'],
    ['branching: { 2: 1 }', `branching: { ${shape.branching}: 1 }`],
  ];
  for (const [from, to] of edits) {
    if (!text.includes(from)) throw new Error(`throughput bench: record-http.yaml no longer holds ${JSON.stringify(from)}; update the bench's manifest edits`);
    text = text.replace(from, to);
  }
  const file = path.join(dir, 'throughput.yaml');
  await writeFile(file, text);
  return file;
}

async function providersFile(dir: string, url: string): Promise<string> {
  const model = (id: string, family: string) => `  ${id}:\n    provider: sim-http\n    model: "${id} (SIMULATED)"\n    family: ${family}\n`;
  const text = ['version: 1', 'providers:', `  sim-http:\n    base_url: ${url}\n    api_key_env: ${KEY_ENV}\n    patience_s: 600\n`, 'models:', model('sim-executor', 'sim-alpha'), model('sim-reviewer', 'sim-beta')].join('\n');
  const file = path.join(dir, 'providers.yaml');
  await writeFile(file, text);
  return file;
}

/** Every command answers at once with exit 0: the sandbox costs nothing, so only the provider binds. */
function instantSandboxes(): FakeSandboxProvider {
  const table = new Proxy({} as Record<string, FakeCommand>, { get: () => () => ({ exitCode: 0, stdout: '', stderr: '' }) });
  return new FakeSandboxProvider(table);
}

async function transcriptFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.jsonl') && path.basename(e.parentPath) === 'transcripts').map((e) => path.join(e.parentPath, e.name));
}

/** Every response line of the run's transcripts: its time and tokens, and how many (session, call) pairs appear twice. */
async function answersOf(runDir: string): Promise<{ answers: Answer[]; twice: number }> {
  const answers: Answer[] = [];
  const seen = new Map<string, number>();
  for (const file of await transcriptFiles(runDir)) {
    for (const raw of (await readFile(file, 'utf8')).split('\n')) {
      if (!raw.includes('"type":"response"')) continue;
      const line = JSON.parse(raw) as { ts: string; sessionId: string; call: number; usage: { inputTokens: number; outputTokens: number } };
      answers.push({ atMs: Date.parse(line.ts), tokens: line.usage.inputTokens + line.usage.outputTokens });
      // Session ids repeat across repetitions (they name the arm, node and role), so a call is its cell's transcript file and index.
      const key = `${path.relative(runDir, file)}#${line.call}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  answers.sort((a, b) => a.atMs - b.atMs);
  return { answers, twice: [...seen.values()].filter((n) => n > 1).length };
}

/** The last poll at or before `atMs` (the first when none is). */
function pollAt(polls: readonly Poll[], atMs: number): Poll {
  let found = polls[0]!;
  for (const p of polls) if (p.atMs <= atMs) found = p;
  return found;
}

const share = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

/** Records one sweep and measures it; the run folder is removed afterwards. */
export async function throughputSweep(run: SweepRun): Promise<SweepFigures> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-bench-throughput-'));
  process.env[KEY_ENV] ??= 'sk-bench-not-a-real-key-0000';
  const manifest = await manifestFile(dir, run.shape);
  const server = await startSimServer({ port: 0, manifest: await loadManifest(manifest), faults: run.faults, log: () => undefined });
  const polls: Poll[] = [];
  const poll = () => {
    const s = server.stats();
    polls.push({ atMs: Date.now(), received: s.received, limited: s.rateLimited.drawn + s.rateLimited.requestsPerMinute + s.rateLimited.tokensPerMinute });
  };
  poll();
  const timer = setInterval(poll, 100);
  const started = performance.now();
  try {
    const out = path.join(dir, 'run');
    await mkdir(dir, { recursive: true });
    const providers = await providersFile(dir, server.url);
    const quiet = { out: () => undefined, err: () => undefined, isTty: false };
    const result = await runRecord(manifest, { out, providers, concurrency: run.concurrency }, quiet, { sandboxes: instantSandboxes(), skipWarmup: true, grade: (tree) => fakeGrade(tree), runsDir: dir });
    const wallSeconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    poll();
    const stats = server.stats();
    const { answers, twice } = await answersOf(out);
    const warmUntil = (answers[0]?.atMs ?? 0) + (run.warmUpS ?? 0) * 1000;
    const from = Math.max(Math.floor(answers.length * WARM_UP_SHARE), answers.findIndex((x) => x.atMs >= warmUntil));
    const to = Math.ceil(answers.length * (1 - TAIL_SHARE));
    const window = answers.slice(from, to);
    const first = window[0]?.atMs ?? 0;
    const last = window.at(-1)?.atMs ?? 0;
    const ms = Math.max(1, last - first);
    // n answers span n - 1 gaps: the rate is gaps over the time they took.
    const perMin = (n: number) => (n * 60_000) / ms;
    const [a, b] = [pollAt(polls, first), pollAt(polls, last)];
    const limitedAll = stats.rateLimited.drawn + stats.rateLimited.requestsPerMinute + stats.rateLimited.tokensPerMinute;
    return {
      calls: answers.length,
      windowCalls: window.length,
      windowSeconds: ms / 1000,
      callsPerMin: perMin(Math.max(0, window.length - 1)),
      tokensPerMin: perMin(window.slice(1).reduce((sum, x) => sum + x.tokens, 0)),
      tokensPerCall: share(answers.reduce((sum, x) => sum + x.tokens, 0), answers.length),
      limitedShareWindow: share(b.limited - a.limited, b.received - a.received),
      limitedShareAll: share(limitedAll, stats.received),
      cellsLost: result.summary.counts.staged - result.summary.counts.measured,
      paidTwiceServer: Object.values(stats.calls).filter((c) => c.answered > 1).length,
      paidTwiceTranscripts: twice,
      unrecorded: stats.answered - answers.length,
      wallSeconds,
    };
  } finally {
    clearInterval(timer);
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
