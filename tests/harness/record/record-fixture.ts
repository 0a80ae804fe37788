import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import Docker from 'dockerode';
import path from 'node:path';
import { promisify } from 'node:util';
import { ModelQuotaExhaustedError, type ModelClient, type ModelRequest } from '../../../engine/index.js';
import { type GradeResult, loadRequirements, type CliIo, REPO_ROOT, runRecord, type RecordFlags, type RecordResult, readSweepJournal, type SweepEvent } from '../../../harness/index.js';
import { type RecordSeams } from '../../../harness/testing.js';
import { FakeSandboxProvider, type FakeCommand, type FakeWorkspace } from '../../support/fake-sandbox.js';
import type { SessionGauge } from '../../support/session-gauge.js';
import { memoisedCommand, type CommandAnswer } from '../../support/command-memo.js';
import { witnessCaseIds } from '../../support/witness-oracle.js';

/**
 * `harness record` on the simulated population WITHOUT Docker, for the sweep's logic tests
 * (resume, ceilings, failures): the sandbox runs each command with sh on the host in the
 * workspace folder (the only code there is the sim's own corpus, never model-written), and
 * grading is a deterministic digest of the tree (equal trees, equal grades). The Docker path
 * is covered by the end-to-end smoke test and bench.
 */

const run = promisify(execFile);

/**
 * The host sandbox's limit per command, far above any command's time (the engine asks for 60 s).
 * A resume re-executes the commands of a cut session and its recorded-call client compares their
 * output with the transcript: a command killed by a limit under load (pytest cut mid-run, exit 1)
 * is a different result from the same command that finished, so a tight limit made a resume
 * mismatch for a reason that has nothing to do with the sweep. A generous limit keeps results a
 * function of the tree alone; a command that still hits it says so (exit 124, timedOut).
 */
export const HOST_COMMAND_LIMIT_MS = 15 * 60_000;

/**
 * Each command runs with sh on the host, in the workspace folder, once per workspace content
 * (command-memo.ts; `memo: false` runs every one). pytest starts without the plugins the host's
 * python may carry (PYTEST_DISABLE_PLUGIN_AUTOLOAD), as in the sandbox image, which has none:
 * pytest-benchmark, for one, makes a `.benchmarks` folder in every workspace it runs in.
 */
export function hostSandboxes(o: { memo?: boolean } = {}): FakeSandboxProvider {
  const execute = async (ws: FakeWorkspace, command: string): Promise<CommandAnswer> => {
    try {
      const r = await run('sh', ['-c', command], { cwd: ws.dir, timeout: HOST_COMMAND_LIMIT_MS, maxBuffer: 1 << 26, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' } });
      return { exitCode: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (error) {
      const e = error as { code?: number | string; killed?: boolean; stdout?: string; stderr?: string };
      if (e.killed) return { exitCode: 124, timedOut: true, stdout: e.stdout ?? '', stderr: `${e.stderr ?? ''}\n[host sandbox: killed after ${HOST_COMMAND_LIMIT_MS / 1000} s]` };
      return { exitCode: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
    }
  };
  const table = new Proxy({} as Record<string, FakeCommand>, {
    get: (_t, command: string) => (ws: FakeWorkspace) => (o.memo === false ? execute(ws, command) : memoisedCommand(ws.dir, command, () => execute(ws, command))),
  });
  return new FakeSandboxProvider(table);
}

async function treeDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile() && !/__pycache__|\.pyc$|\.pytest_cache/.test(path.join(e.parentPath, e.name)));
  for (const rel of entries.map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()) hash.update(rel).update(await readFile(path.join(dir, rel)));
  return hash.digest('hex');
}

/** A FAKE grade: requirement i passes when a digest of the tree and its id says so. Equal trees get equal grades. */
export async function fakeGrade(tree: string): Promise<GradeResult> {
  const requirements = await loadRequirements(path.join(REPO_ROOT, 'spec/sqlcsv'));
  const digest = await treeDigest(tree);
  const rows = requirements.map((r) => {
    const pass = createHash('sha256').update(digest + r.id).digest()[0]! < 200;
    return { id: r.id, title: r.title, pass, passed: pass ? 1 : 0, total: 1, failures: pass ? [] : [{ case: `${r.id}-1`, reason: 'fake' }] };
  });
  const satisfied = rows.filter((r) => r.pass).length;
  return { version: 2, spec: 'sqlcsv', tree, satisfied, total: rows.length, casesPassed: satisfied, casesTotal: rows.length, testFiles: 0, requirements: rows, skipped: [], skippedCount: 0, undeliverable: null, mode: 'fork', compile: null, integrityChecks: 1, elapsedMs: 1 };
}

export interface SimRecordOptions {
  /**
   * SIGKILL this process right after the journal holds n events of this type, counting those of
   * earlier invocations (a re-opened session's start is not counted again), so kills can be
   * chained through one sweep.
   */
  killAt?: { type: SweepEvent['type']; n: number };
  /** Appends `<sessionId> <call index>` of every LIVE model call to this file. */
  countFile?: string;
  /** The n-th live model call (1-based, across the sweep) answers insufficient_quota. */
  quotaAt?: number;
  /** The n-th live model call throws a TypeError, as a bug in a client would. */
  bugAt?: number;
  /** This cell's tree cannot be graded. */
  ungradable?: string;
  /** Grade in Docker with the real grader and the oracle's witness cases (witness-oracle.ts) instead of the fake digest grade. Default false. */
  realGrade?: boolean;
  /** SIGKILL this process inside its first grading: once its scratch folder and container exist. Implies realGrade. */
  killInGrading?: boolean;
  signal?: AbortSignal;
  onEvent?: (event: SweepEvent) => void;
  /**
   * Sandboxes in the Docker daemon the environment names (DOCKER_HOST), as a real sweep's, with
   * the Docker preflight; grading stays fake. Default: the host sandbox.
   */
  dockerSandboxes?: boolean;
  /** Counts the sessions in flight across the sweep (every client of every pair, as an endpoint sees them). */
  inFlight?: SessionGauge;
}

/** Resolves once this process's grading has its scratch folder and a running container. */
async function insideGrading(): Promise<void> {
  const docker = new Docker();
  for (;;) {
    const scratch = (await readdir(tmpdir())).some((n) => n.startsWith('rdh-grade-') && n.includes(`-${process.pid}-`));
    const containers = await docker.listContainers({ filters: { label: [`io.rdh.purpose=grading`, `io.rdh.pid=${process.pid}`] } });
    if (scratch && containers.length > 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function bufferIo(): CliIo & { text(): string } {
  let out = '';
  return { out: (t) => void (out += t), err: (t) => void (out += t), isTty: false, text: () => out };
}

/** Whether `event` counts towards a kill point: a re-opened session started earlier. */
const counts = (event: SweepEvent, type: SweepEvent['type']) => event.type === type && !(event.type === 'session_started' && event.reopened);

export function simSeams(o: SimRecordOptions = {}, before: readonly SweepEvent[] = []): RecordSeams {
  let calls = 0;
  let counted = o.killAt ? before.filter((e) => counts(e, o.killAt!.type)).length : 0;
  return {
    ...(o.dockerSandboxes ? {} : { sandboxes: hostSandboxes() }),
    skipWarmup: true,
    ...(o.signal ? { signal: o.signal } : {}),
    onEvent: (event) => {
      o.onEvent?.(event);
      if (o.killAt && counts(event, o.killAt.type) && ++counted === o.killAt.n) process.kill(process.pid, 'SIGKILL');
    },
    grade: async (tree, cell, base) => {
      if (o.ungradable === cell) throw new Error(`the tree of ${cell} cannot be graded (test)`);
      if (o.killInGrading) {
        const grading = base(tree);
        await insideGrading();
        process.kill(process.pid, 'SIGKILL');
        return grading;
      }
      return o.realGrade ? base(tree, { caseIds: await witnessCaseIds('sqlcsv') }) : fakeGrade(tree);
    },
    modelsFor: (_cap, _rep, base) => ({
      roster: base.roster,
      clients: Object.fromEntries(
        Object.entries(base.clients).map(([name, live]): [string, ModelClient] => {
          const client = o.inFlight ? o.inFlight.wrap(live) : live;
          const counting: ModelClient = {
            async complete(request: ModelRequest) {
              calls++;
              if (o.quotaAt !== undefined && calls >= o.quotaAt) throw new ModelQuotaExhaustedError(request.model, 'insufficient_quota (test)');
              if (o.bugAt !== undefined && calls === o.bugAt) throw new TypeError("Cannot read properties of undefined (reading 'choices') (a bug, planted by the test)");
              const response = await client.complete(request);
              // A call is named by its session and the length of the history it sent (it only grows).
              if (o.countFile) appendFileSync(o.countFile, `${request.sessionId} ${request.messages.length}\n`);
              return response;
            },
          };
          return [name, counting];
        }),
      ),
    }),
  };
}

/**
 * The smoke sweep's SIMULATED population with a fixed branching of 2, no early leaves and one
 * merge attempt: the cheapest trees that still merge, whose sessions `plan` counts exactly.
 */
export const RECORD_MANIFEST = path.join(REPO_ROOT, 'tests/harness/record/record-sim.yaml');

export async function recordSim(out: string, flags: RecordFlags = {}, o: SimRecordOptions = {}, io: CliIo = bufferIo()): Promise<RecordResult> {
  const before = o.killAt ? await readSweepJournal(path.join(out, 'journal.jsonl')).then((j) => j.events, () => []) : [];
  return runRecord(RECORD_MANIFEST, { ...flags, out }, io, simSeams(o, before));
}
