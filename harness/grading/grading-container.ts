import { randomInt } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type Docker from 'dockerode';
import { ContainerShutdown, RdhError, sandboxLabels } from '../../engine/index.js';
import { RunnerReport } from './grading-report.js';

/** The grading could not be shown to be honest, so no score is given (exit code 4). */
export class GradingRefusedError extends RdhError {
  readonly code = 'grading_refused';
}

export interface ContainerRun {
  image: string;
  /** Scratch folder holding oracle/, data/, tree/ and out/, mounted at /grade. */
  scratch: string;
  cases: number;
  caseTimeoutMs: number;
  /** Wall-clock backstop of a timed-out case's re-run alone. Default 20 x caseTimeoutMs. */
  rerunTimeoutMs?: number;
  workers: number;
  mode: 'fork' | 'exec';
  reveal: boolean;
  runId: string;
  /** The task's judge and the modules it imports, staged in oracle/ beside the runner (the judge first). */
  judgeFiles: readonly string[];
}

/** Compile step limit inside the runner (COMPILE_TIMEOUT), plus start-up and tear-down. */
const FIXED_ALLOWANCE_MS = 120_000;
/** Per program start, beyond its own limit: killing what is left of its uid and draining its pipes on a busy machine (a fork bomb's re-run took 49 s at load 200, its backstop 20 s of it). */
const PER_RUN_ALLOWANCE_MS = 60_000;

/**
 * Runs the shared oracle/runner/runner.py, with the task's judge, in a container made for this grading alone, and returns the
 * report it wrote. The runner has no whole-grading deadline (a slow case is charged to that
 * case only); the limit here is a safety net computed from the per-case limits, so a tree
 * cannot reach it: if it fires, the runner itself misbehaved and the grading is refused.
 */
export async function runGradingContainer(docker: Docker, run: ContainerRun, shutdown = new ContainerShutdown()): Promise<RunnerReport> {
  const owner = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  // Each grading draws its own uid range, so concurrent gradings never share a uid (rlimits
  // such as RLIMIT_NPROC count per uid across the whole machine).
  const uidBase = randomInt(1, 2_000_000) * 1024;
  const rerunTimeoutMs = run.rerunTimeoutMs ?? 20 * run.caseTimeoutMs;
  // Every case may time out and be re-run alone, one at a time.
  const safetyMs = FIXED_ALLOWANCE_MS + Math.ceil((run.cases * (run.caseTimeoutMs + PER_RUN_ALLOWANCE_MS)) / run.workers) + run.cases * (rerunTimeoutMs + PER_RUN_ALLOWANCE_MS);
  const create = () => docker.createContainer({
    Image: run.image,
    User: '0:0',
    // -I -S -B: no script dir or user site on sys.path, no site module (so no sitecustomize
    // or .pth from anywhere), no bytecode written.
    Cmd: [
      'python3', '-I', '-S', '-B', '/grade/oracle/runner.py',
      '--owner', owner,
      '--uid-base', String(uidBase),
      '--case-timeout', String(run.caseTimeoutMs / 1000),
      '--rerun-timeout', String(rerunTimeoutMs / 1000),
      '--workers', String(run.workers),
      '--mode', run.mode,
      ...(run.reveal ? ['--reveal'] : []),
      '--judge', run.judgeFiles[0]!,
      ...run.judgeFiles.slice(1).flatMap((m) => ['--judge-module', m]),
    ],
    WorkingDir: '/grade/oracle',
    NetworkDisabled: true,
    Labels: sandboxLabels(run.runId, 'grading'),
    HostConfig: {
      Init: true,
      NetworkMode: 'none',
      // No /dev/shm and a private IPC namespace: no shared scratch between cases.
      IpcMode: 'none',
      Binds: [`${run.scratch}:/grade:rw`],
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=67108864,mode=0711' },
      Memory: 1024 ** 3,
      MemorySwap: 1024 ** 3,
      NanoCpus: 2e9,
      PidsLimit: 512,
      CapDrop: ['ALL'],
      // Root inside only to own the layout and give each case a uid of its own; no program gets any of these.
      CapAdd: ['CHOWN', 'FOWNER', 'DAC_OVERRIDE', 'SETUID', 'SETGID', 'KILL'],
      SecurityOpt: ['no-new-privileges'],
    },
  });
  const container = await shutdown.admit(
    'a grading container',
    async () => {
      const made = await create();
      await made.start().catch(async (error: unknown) => {
        await made.remove({ force: true }).catch(() => undefined);
        throw error;
      });
      return made;
    },
    (made) => made.remove({ force: true }).catch(() => undefined),
  );
  try {
    // `not-running` answers at once for a runner that already exited, and waits otherwise.
    const exited = container.wait({ condition: 'not-running' });
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      exited.then((r: { StatusCode: number }) => r.StatusCode),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), safetyMs);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === 'timeout') await container.kill().catch(() => undefined);
    const raw = await readFile(path.join(run.scratch, 'out', 'report.json'), 'utf8').catch(() => null);
    if (raw === null) {
      const logs = (await container.logs({ stdout: true, stderr: true, tail: 20 }).catch(() => Buffer.from(''))).toString('utf8');
      const tail = logs.replace(/[\x00-\x08]/g, '').trim().split('\n').slice(-3).join(' | ');
      throw new GradingRefusedError(`the oracle runner wrote no report (${outcome === 'timeout' ? 'killed after its safety limit' : `exit ${outcome}`}): ${tail || 'no output'}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      throw new GradingRefusedError('the oracle report is not JSON; measurement refused.');
    }
    const parsed = RunnerReport.safeParse(json);
    if (!parsed.success) throw new GradingRefusedError(`the oracle report is malformed: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}
