import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, runReplay, type ReplayResult, type SimServer } from '../../../harness/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { KEY_ENV, providersFile, recordHttp, startServer } from './http-fixture.js';
import { bufferIo, fakeGrade, hostSandboxes } from './record-fixture.js';

/**
 * The paid path's record, kept exact and paid once (docs/redaction.md), over HTTP against the
 * SIMULATED server (`harness sim serve`, host sandboxes, the fake grade):
 * - the run is recorded with the key `anything`, the README's example key for the simulated
 *   server and the shortest value the known-value redaction acts on (MIN_KNOWN_LENGTH): spec
 *   text and replies hold the word, and no record, event or workspace file is rewritten;
 * - it is interrupted three times and resumed each time: no call is answered twice by the
 *   server, and the progress display, the summary (printed and summary.json) and the report
 *   all show the server's own bill, each live call once, across the four invocations;
 * - with the server stopped, `harness replay` reproduces every cell from the transcripts.
 */

const HEAVY = 1_200_000;
/** The shortest key the known-value redaction acts on: the one that rewrote replies. */
const KEY = 'anything';
const MARKER = '[REDACTED';
/** Dollars as the harness prints a figure below $100. */
const usd = (n: number) => `$${n.toFixed(2)}`;
/** The fixture's prices (providersFile): US dollars per million tokens. */
const PRICE = { input: 1, output: 2, cached_input: 0.1 };

let tmp: string;
let dir: string;
let server: SimServer;
let previousKey: string | undefined;
const exits: number[] = [];
let lastOutput = '';

/** Every file under `root`, recursively, as text. */
async function filesUnder(root: string): Promise<Array<{ file: string; text: string }>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return Promise.all(entries.filter((e) => e.isFile()).map(async (e) => ({ file: path.join(e.parentPath, e.name), text: await readFile(path.join(e.parentPath, e.name), 'utf8') })));
}

/** What the server billed: every token it answered, at the fixture's prices. */
function serverBill(): number {
  const t = server.stats().tokens;
  return ((t.prompt - t.cached) * PRICE.input + t.cached * PRICE.cached_input + t.completion * PRICE.output) / 1e6;
}

beforeAll(async () => {
  previousKey = process.env[KEY_ENV];
  process.env[KEY_ENV] = KEY;
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-http-paid-'));
  server = await startServer();
  const providers = await providersFile(path.join(tmp, 'p'), server.url);
  dir = path.join(tmp, 'run');
  // Three invocations cut short (each after its 5th new session starts), then one that finishes.
  for (let i = 0; i < 4; i++) {
    const stop = new AbortController();
    let opened = 0;
    const io = bufferIo();
    const cut = i < 3 ? (e: { type: string; reopened?: boolean }) => void (e.type === 'session_started' && !e.reopened && ++opened === 5 && stop.abort()) : undefined;
    const result = await recordHttp(dir, { depths: [1], keepWorkspaces: true }, { providers, clock: new FakeClock(), skipWarmup: true, signal: stop.signal, ...(cut ? { onEvent: cut } : {}) }, io);
    exits.push(result.exit);
    lastOutput = io.text();
  }
}, HEAVY);

afterAll(async () => {
  await server?.stop();
  if (previousKey === undefined) delete process.env[KEY_ENV];
  else process.env[KEY_ENV] = previousKey;
});

describe('the paid path over HTTP with the key "anything" (SIMULATED server), interrupted three times', () => {
  it('is interrupted three times and then finishes (exit 0)', () => {
    expect(exits).toEqual([EXIT.interrupted, EXIT.interrupted, EXIT.interrupted, EXIT.ok]);
  });

  it('keeps the record exact: the key\'s word is in it as the models and the spec wrote it, and no transcript, event or workspace file holds a redaction marker', async () => {
    const transcripts = (await filesUnder(path.join(dir, 'cells'))).filter((f) => f.file.includes(`${path.sep}transcripts${path.sep}`));
    expect(transcripts.length).toBeGreaterThan(0);
    expect(transcripts.some((f) => f.text.includes(KEY))).toBe(true);
    const everything = [...(await filesUnder(path.join(dir, 'cells'))), ...(await filesUnder(path.join(dir, 'pairs')))];
    expect(everything.some((f) => f.file.includes(`${path.sep}work${path.sep}`) || f.file.includes(`${path.sep}tree${path.sep}`))).toBe(true);
    expect(everything.filter((f) => f.text.includes(MARKER)).map((f) => path.relative(dir, f.file))).toEqual([]);
  });

  it('pays nothing twice: the server answered every call once across the four invocations', () => {
    const twice = Object.entries(server.stats().calls).filter(([k, c]) => c.answered > 1 && !k.startsWith('preflight/')).map(([k]) => k);
    expect(twice).toEqual([]);
  });

  it('shows one paid figure, the server\'s own bill, in the progress display, the summary, summary.json and the report', async () => {
    const bill = serverBill();
    expect(bill).toBeGreaterThan(0);
    const summary = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as { paid: { usd: number } };
    const report = JSON.parse(await readFile(path.join(dir, 'report', 'report.json'), 'utf8')) as { cost: { paid: { usd: number; unpricedCalls: number } } };
    expect(summary.paid.usd).toBeCloseTo(bill, 9);
    expect(report.cost.paid.usd).toBeCloseTo(bill, 9);
    expect(report.cost.paid.unpricedCalls).toBe(0);
    // The display's last cell line and the printed summary, as a person reads them (cents).
    const shown = [...lastOutput.matchAll(/sessions, (\$[\d.,]+) paid/g)].map((m) => m[1]);
    expect(shown.at(-1)).toBe(usd(bill));
    expect(lastOutput).toContain(`paid ${usd(bill)} (every invocation, each live call once)`);
  });

  it('replays every cell from the transcripts with the server stopped (exit 0)', async () => {
    await server.stop();
    const io = bufferIo();
    const result: ReplayResult = await runReplay(dir, {}, io, { sandboxes: hostSandboxes(), grade: fakeGrade });
    expect(result.cells.map((c) => `${c.cell}: ${c.status}${c.detail.length ? ` (${c.detail.join(' ')})` : ''}`)).toEqual(['cap1-rep1-gated: reproduced', 'cap1-rep1-ungated: reproduced']);
    expect(result.exit).toBe(EXIT.ok);
    expect(result.calls.live).toBe(0);
  }, HEAVY);
});
