import { cp, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OpenAIModelClient } from '../../../engine/index.js';
import { SimPopulation, runCli, runRecord, runReplay, type ReplayResult } from '../../../harness/index.js';
import { RECORD_MANIFEST, bufferIo } from '../record/record-fixture.js';
import { manifestVariant } from '../../support/manifest-variant.js';
import { witnessCaseIds } from '../../support/witness-oracle.js';

/**
 * `harness replay` end to end, in real Docker: one SIMULATED pair (cap 1, both arms, one
 * repetition) is recorded by `harness record` with its default Docker sandboxes, graded with
 * the oracle's witness cases (tests/support/witness-oracle.ts), then replayed as recorded with
 * the same grading (every cell reproduces, exit 0) and, by the command as a user runs it, with
 * one recorded reply edited by hand (a divergence at the right node and call, exit 7). No model
 * is called while replaying: no openai client is constructed and the simulated population never
 * answers. Replay compares the whole grade, case counts included, so a recording and its replay
 * grade with one oracle folder.
 */

/** Counts every openai SDK client constructed in this process (the only way a model is reached over HTTP). */
const sdk = vi.hoisted(() => ({ constructed: 0 }));
vi.mock('openai', async (importOriginal) => {
  const mod = await importOriginal<typeof import('openai')>();
  class CountedOpenAI extends mod.default {
    constructor(...args: ConstructorParameters<typeof mod.default>) {
      sdk.constructed++;
      super(...args);
    }
  }
  return { ...mod, default: CountedOpenAI, OpenAI: CountedOpenAI };
});

const HEAVY = 1_200_000;
/** The leaf worker session whose reply the edited run changes, and the call it edits (0-based). */
const EDITED = { cell: 'cap1-rep1-gated', session: 'root.1/worker/1', file: 'root.1%2Fworker%2F1.jsonl', call: 1 };

let tmp: string;
let recorded: { dir: string; exit: number; simAnswers: number };
let clean: { exit: number; output: string; simAnswers: number; clients: number };
let edited: { dir: string; exit: number; output: string; simAnswers: number; clients: number };

/** The command as a user runs it; its output is parsed by each test, so one phase's failure fails only its tests. */
async function replayCli(dir: string): Promise<{ exit: number; output: string }> {
  const io = bufferIo();
  const out: string[] = [];
  const exit = await runCli(['replay', dir, '--json'], { ...io, out: (t) => void out.push(t) });
  return { exit, output: out.join('') || io.text() };
}
const resultOf = (run: { output: string }) => JSON.parse(run.output) as ReplayResult;

/** Replaces the command of the edited call's tool call: the engine then runs another command, and its next request is one the record does not hold. */
async function editReply(dir: string): Promise<void> {
  const file = path.join(dir, 'cells', EDITED.cell, 'transcripts', EDITED.file);
  const lines = (await readFile(file, 'utf8')).split('\n');
  let edits = 0;
  const out = lines.map((raw) => {
    if (!raw.trim()) return raw;
    const line = JSON.parse(raw) as { type: string; call: number; toolCalls?: Array<{ name: string; arguments: string }> };
    if (line.type !== 'response' || line.call !== EDITED.call) return raw;
    const call = line.toolCalls!.find((c) => c.name === 'run_command')!;
    call.arguments = JSON.stringify({ command: 'echo edited by hand' });
    edits++;
    return JSON.stringify(line);
  });
  expect(edits).toBe(1);
  await writeFile(file, out.join('\n'));
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-replay-test-'));
  const answers = vi.spyOn(SimPopulation.prototype, 'complete');
  const dir = path.join(tmp, 'run');
  // Leaves not graded (2 of the pair's 4 gradings, each repeated by the replay): replaying leaf grades is shown
  // by commonmark-smoke.test.ts, whose --cell replay regrades the shared build's leaves as recorded.
  const manifest = await manifestVariant(RECORD_MANIFEST, tmp, { grade_leaves: false });
  const witnesses = await witnessCaseIds('sqlcsv');
  const record = await runRecord(manifest, { out: dir, depths: [1] }, bufferIo(), { skipWarmup: true, runsDir: tmp, grade: (tree, _cell, base) => base(tree, { caseIds: witnesses }) });
  recorded = { dir, exit: record.exit, simAnswers: answers.mock.calls.length };

  answers.mockClear();
  sdk.constructed = 0;
  const replay = await runReplay(dir, { json: true }, bufferIo(), { grade: (tree, base) => base(tree, { caseIds: witnesses }) });
  clean = { exit: replay.exit, output: JSON.stringify(replay), simAnswers: answers.mock.calls.length, clients: sdk.constructed };

  const copy = path.join(tmp, 'edited');
  await cp(dir, copy, { recursive: true });
  await editReply(copy);
  answers.mockClear();
  sdk.constructed = 0;
  const diverged = await replayCli(copy);
  edited = { dir: copy, ...diverged, simAnswers: answers.mock.calls.length, clients: sdk.constructed };
  answers.mockRestore();
}, HEAVY);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('harness replay', () => {
  it('replays a recorded run: every cell reproduces, from the transcripts alone, exit 0', () => {
    expect(recorded.exit).toBe(0);
    expect(resultOf(clean).cells.map((c) => [c.cell, c.status, c.detail])).toEqual([
      ['cap1-rep1-gated', 'reproduced', []],
      ['cap1-rep1-ungated', 'reproduced', []],
    ]);
    expect(clean.exit).toBe(0);
    expect(resultOf(clean).caveats).toEqual([]);
  });

  it('constructs no model client and asks the simulated population nothing: every call is served from the record', async () => {
    // The seams count for real: the recording asked the population, and an openai client is counted when built.
    expect(recorded.simAnswers).toBeGreaterThan(20);
    const before = sdk.constructed;
    new OpenAIModelClient({ baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-test-not-used' });
    expect(sdk.constructed).toBe(before + 1);

    expect(clean.clients).toBe(0);
    expect(clean.simAnswers).toBe(0);
    expect(edited.clients).toBe(0);
    expect(edited.simAnswers).toBe(0);
    expect(resultOf(clean).calls.live).toBe(0);
    // Every call the transcripts hold was asked again and served (the build's and both merges').
    const files = await Promise.all(['cap1-rep1-gated', 'cap1-rep1-ungated'].map((c) => readdir(path.join(recorded.dir, 'cells', c, 'transcripts'))));
    let responses = 0;
    for (const [i, names] of files.entries()) {
      for (const name of names) {
        const text = await readFile(path.join(recorded.dir, 'cells', i === 0 ? 'cap1-rep1-gated' : 'cap1-rep1-ungated', 'transcripts', name), 'utf8');
        responses += text.split('\n').filter((l) => l.includes('"type":"response"')).length;
      }
    }
    expect(resultOf(clean).calls.served).toBe(responses);
  });

  it('catches a reply edited by hand as a divergence at its node and call, exit 7', () => {
    expect(edited.exit).toBe(7);
    const [gated, ungated] = resultOf(edited).cells;
    expect(gated!.status).toBe('diverged');
    expect(ungated!.status).toBe('diverged');
    expect(gated!.detail).toMatchInlineSnapshot(`
      [
        "at node root.1 (worker, attempt 1), session root.1/worker/1, call 2: the messages differ from the recorded ones after normalisation",
        "message 38 of 39 (assistant)",
        "expected: …role":"assistant","toolCalls":[{"arguments":"{\\"command\\":\\"python3 -m pytest -q -p no:cacheprovider tests/test_r01_tabl…",
        "got:      …role":"assistant","toolCalls":[{"arguments":"{\\"command\\":\\"echo edited by hand\\"}","id":"sim_1_0","name":"run_command"}…",
      ]
    `);
    expect(resultOf(edited).calls.live).toBe(0);
  });

  it('refuses a run recorded on other code, naming the commit and the flag, exit 2', async () => {
    const copy = path.join(tmp, 'other-code');
    await cp(recorded.dir, copy, { recursive: true, filter: (src) => !src.includes(`${path.sep}transcripts`) });
    const journal = path.join(copy, 'journal.jsonl');
    const text = await readFile(journal, 'utf8');
    const [header, ...rest] = text.split('\n');
    const parsed = JSON.parse(header!) as { pins: { code: { state: string; commit: string; dirty: boolean; changes: string | null } } };
    parsed.pins.code = { state: 'git', commit: 'c'.repeat(40), dirty: false, changes: null };
    await writeFile(journal, [JSON.stringify(parsed), ...rest].join('\n'));
    const io = bufferIo();
    const exit = await runCli(['replay', copy], io);
    expect(exit).toBe(2);
    const thisCode = /→ harness [^,]+, commit [0-9a-f]{8}…(?: \(clean\)| \+ uncommitted changes [0-9a-f]{8}…)/;
    expect(io.text().replace(copy, '<run>').replace(thisCode, '→ <this code>')).toMatchInlineSnapshot(`
      "harness: the code changed since <run> was recorded (harness 0.1.0, commit cccccccc… (clean) → <this code>): check out the recorded commit cccccccccccc to replay it exactly, or pass --allow-code-change to replay on this code with a caveat
      "
    `);
  });

  it('refuses an unknown run folder and an unknown or unmeasured cell with one line naming the fix, exit 2', async () => {
    const io = bufferIo();
    expect(await runCli(['replay', path.join(tmp, 'nowhere')], io)).toBe(2);
    expect(await runCli(['replay', recorded.dir, '--cell', 'cap2-rep1-gated'], io)).toBe(2);
    expect(await runCli(['replay', recorded.dir, '--cell', 'cap1-gated'], io)).toBe(2);
    expect(io.text().replaceAll(tmp, '<tmp>')).toMatchInlineSnapshot(`
      "harness: <tmp>/nowhere does not exist; point at a run folder written by harness record (runs/NAME)
      harness: --cell cap2-rep1-gated: <tmp>/run holds no such cell; choose one of cap1-rep1-gated, cap1-rep1-ungated
      harness: --cell "cap1-gated" is not a cell id (cap<N>-rep<N>-gated|ungated); choose one of cap1-rep1-gated, cap1-rep1-ungated
      "
    `);
  });
});
