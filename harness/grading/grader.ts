import { copyFile, cp, lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { RdhError, SandboxImageMissingError, assertDockerReachable, sandboxLabels } from '../../engine/index.js';
import { GradeResult, RunnerReport } from './grading-report.js';
import { loadOracle, type Oracle } from './oracle-cases.js';
import { oracleDir, specDir } from '../paths.js';
import { sandboxImageTag } from '../sandbox/sandbox-image.js';
import { loadRequirements, type Requirement } from './spec-requirements.js';

/** The grading could not be shown to be honest, so no score is given (exit code 4). */
export class GradingRefusedError extends RdhError {
  readonly code = 'grading_refused';
}

export interface GradeOptions {
  /** The tree to grade (its root holds the deliverable, e.g. `sqlcsv/__main__.py`). */
  tree: string;
  /** Spec name: `spec/<name>` and `oracle/<name>`. Default `sqlcsv`. */
  spec?: string;
  /** Where the spec's requirements live. Default `spec/<spec>`. */
  specDir?: string;
  /** Where the held-out oracle lives. Default `oracle/<spec>`. */
  oracleDir?: string;
  /** Default: a client from the environment (`DOCKER_HOST`). */
  docker?: Docker;
  /** Default: the current sandbox image tag. */
  image?: string;
  /** Per-case limit; a program that has not finished is killed and the case fails. Default 3000 ms. */
  caseTimeoutMs?: number;
  /** Whole-grading limit; cases not started by then fail as not run. Default 90 000 ms. */
  deadlineMs?: number;
  /** Cases run at once inside the container. Default 4. */
  workers?: number;
  /** Run id for the grading container's labels (so `sandbox prune` finds orphans). Default `grade`. */
  runId?: string;
}

/** Files the oracle dir may hold once the runner has deleted its expectations. */
const ORACLE_ALLOWLIST = ['runner.py'];
const TEST_FILE = /^(test_.*|.*_test)\.py$/;

const loaded = new Map<string, Promise<{ oracle: Oracle; requirements: Requirement[] }>>();

/** Spec requirements and oracle cases, loaded and validated once per process. */
export function loadSpecOracle(spec: string, dirs: { specDir?: string; oracleDir?: string } = {}): Promise<{ oracle: Oracle; requirements: Requirement[] }> {
  const sDir = dirs.specDir ?? specDir(spec);
  const oDir = dirs.oracleDir ?? oracleDir(spec);
  const key = `${sDir}\0${oDir}`;
  let entry = loaded.get(key);
  if (!entry) {
    entry = (async () => {
      const requirements = await loadRequirements(sDir);
      return { requirements, oracle: await loadOracle(oDir, requirements) };
    })();
    entry.catch(() => loaded.delete(key));
    loaded.set(key, entry);
  }
  return entry;
}

/**
 * Grade a tree with the held-out oracle, in a container built for this grading alone from a
 * scratch copy of the tree beside a copy of the oracle. See oracle/<spec>/runner.py for the
 * order of events inside; this side stages, then re-checks that the expectations are gone
 * and refuses the measurement if anything but the allowlist remains.
 */
export async function gradeTree(options: GradeOptions): Promise<GradeResult> {
  const spec = options.spec ?? 'sqlcsv';
  const docker = options.docker ?? new Docker();
  const image = options.image ?? sandboxImageTag();
  const tree = path.resolve(options.tree);
  const treeStat = await lstat(tree).catch(() => null);
  if (!treeStat?.isDirectory()) throw new GradingRefusedError(`${options.tree} is not a directory; pass the root of the tree to grade.`);
  const { oracle, requirements } = await loadSpecOracle(spec, options);
  await assertDockerReachable(docker);
  await docker.getImage(image).inspect().catch((cause) => {
    throw new SandboxImageMissingError(image, { cause });
  });

  const started = performance.now();
  const scratch = await mkdtemp(path.join(tmpdir(), 'rdh-grade-'));
  try {
    const staged = await stage(scratch, tree, oracle, requirements);
    const report = await runContainer(docker, image, scratch, options);
    const leftovers = (await readdir(path.join(scratch, 'oracle'))).sort();
    if (leftovers.join() !== ORACLE_ALLOWLIST.join()) {
      throw new GradingRefusedError(`oracle expectations were not deleted before grading: ${leftovers.join(', ')} remain; measurement refused.`);
    }
    const dataNow = await listTree(path.join(scratch, 'data'));
    if (dataNow.join('\n') !== staged.data.join('\n')) {
      throw new GradingRefusedError('the staged data sets changed during grading; measurement refused.');
    }
    if (!report.integrity.expectations_deleted || report.integrity.violation) {
      throw new GradingRefusedError(`runner reported an integrity violation: ${report.integrity.violation ?? 'expectations not deleted'}; measurement refused.`);
    }
    return summarise(report, requirements, spec, tree, await countTestFiles(tree), performance.now() - started);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function stage(scratch: string, tree: string, oracle: Oracle, requirements: Requirement[]): Promise<{ data: string[] }> {
  for (const d of ['oracle', 'data', 'tree', 'out']) await mkdir(path.join(scratch, d));
  // Only the runner and the expectations are staged: nothing compiled, nothing else.
  await copyFile(path.join(oracle.dir, 'runner.py'), path.join(scratch, 'oracle', 'runner.py'));
  const bundle = { spec: oracle.name, requirements: requirements.map((r) => r.id), cases: oracle.cases };
  await writeFile(path.join(scratch, 'oracle', 'expectations.json'), JSON.stringify(bundle));
  for (const name of oracle.datasets) {
    await cp(path.join(oracle.dir, 'data', name), path.join(scratch, 'data', name), {
      recursive: true,
      filter: (src) => !src.includes('__pycache__'),
    });
  }
  await cp(tree, path.join(scratch, 'tree'), {
    recursive: true,
    verbatimSymlinks: true,
    // Sockets, fifos and devices cannot be copied meaningfully and could hang a reader; stale
    // bytecode from wherever the tree was built is dropped (the runner compiles afresh).
    filter: async (src) => {
      if (path.basename(src) === '__pycache__') return false;
      const s = await lstat(src);
      return s.isFile() || s.isDirectory() || s.isSymbolicLink();
    },
  });
  return { data: await listTree(path.join(scratch, 'data')) };
}

async function runContainer(docker: Docker, image: string, scratch: string, options: GradeOptions): Promise<RunnerReport> {
  const deadlineMs = options.deadlineMs ?? 90_000;
  const owner = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  const container = await docker.createContainer({
    Image: image,
    User: '0:0',
    // -I -S -B: no script dir or user site on sys.path, no site module (so no sitecustomize
    // or .pth from anywhere), no bytecode written.
    Cmd: [
      'python3', '-I', '-S', '-B', '/grade/oracle/runner.py',
      '--owner', owner,
      '--case-timeout', String((options.caseTimeoutMs ?? 3000) / 1000),
      '--deadline', String(deadlineMs / 1000),
      '--workers', String(options.workers ?? 4),
    ],
    WorkingDir: '/grade/oracle',
    NetworkDisabled: true,
    Labels: sandboxLabels(options.runId ?? 'grade', 'grading'),
    HostConfig: {
      Init: true,
      NetworkMode: 'none',
      Binds: [`${scratch}:/grade:rw`],
      ReadonlyRootfs: true,
      Tmpfs: { '/tmp': 'rw,nosuid,nodev,size=67108864,mode=1777' },
      Memory: 1024 ** 3,
      MemorySwap: 1024 ** 3,
      NanoCpus: 2e9,
      PidsLimit: 256,
      CapDrop: ['ALL'],
      // Root inside only to own the layout and drop to the program's uid; the program gets none of these.
      CapAdd: ['CHOWN', 'FOWNER', 'DAC_OVERRIDE', 'SETUID', 'SETGID', 'KILL'],
      SecurityOpt: ['no-new-privileges'],
    },
  });
  try {
    const exited = container.wait({ condition: 'next-exit' });
    await container.start();
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      exited.then((r: { StatusCode: number }) => r.StatusCode),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), deadlineMs + 30_000);
      }),
    ]);
    clearTimeout(timer);
    if (outcome === 'timeout') await container.kill().catch(() => undefined);
    const raw = await readFile(path.join(scratch, 'out', 'report.json'), 'utf8').catch(() => null);
    if (raw === null) {
      const logs = (await container.logs({ stdout: true, stderr: true, tail: 20 }).catch(() => Buffer.from(''))).toString('utf8');
      const tail = logs.replace(/[\x00-\x08]/g, '').trim().split('\n').slice(-3).join(' | ');
      throw new GradingRefusedError(`the oracle runner wrote no report (${outcome === 'timeout' ? 'killed after its deadline' : `exit ${outcome}`}): ${tail || 'no output'}`);
    }
    const parsed = RunnerReport.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new GradingRefusedError(`the oracle report is malformed: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

function summarise(report: RunnerReport, requirements: Requirement[], spec: string, tree: string, testFiles: number, ms: number): GradeResult {
  const rows = requirements.map((r) => {
    const verdict = report.requirements[r.id] ?? { pass: false, passed: 0, total: 0 };
    const failures = report.cases.filter((c) => c.req === r.id && !c.pass).map((c) => ({ case: c.id, reason: c.reason ?? 'failed' }));
    return { id: r.id, title: r.title, ...verdict, failures };
  });
  return GradeResult.parse({
    version: 1,
    spec,
    tree,
    satisfied: rows.filter((r) => r.pass).length,
    total: requirements.length,
    casesPassed: report.cases.filter((c) => c.pass).length,
    casesTotal: report.cases.length,
    testFiles,
    requirements: rows,
    integrityChecks: report.integrity.checks + 1,
    elapsedMs: Math.round(ms),
  });
}

/** Every path under root, relative and sorted: what was staged, to compare after grading. */
async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort();
}

async function countTestFiles(tree: string): Promise<number> {
  const entries = await readdir(tree, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile() && TEST_FILE.test(e.name)).length;
}
