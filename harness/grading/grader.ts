import { copyFile, lstat, mkdir, readdir, realpath, writeFile, cp } from 'node:fs/promises';
import { makeScratch, removeScratch } from './scratch-folder.js';
import path from 'node:path';
import Docker from 'dockerode';
import { SandboxImageMissingError, WORKSPACE_SCAFFOLDING, assertDockerReachable, type ContainerShutdown } from '../../engine/index.js';
import { revealFailures } from './failure-reveal.js';
import { GradingRefusedError, runGradingContainer } from './grading-container.js';
import { GradeResult, type RunnerReport, type ScaffoldingSize } from './grading-report.js';
import { loadOracle, oracleSubset, type Oracle } from './oracle-cases.js';
import { oracleDir, runnerDir, specDir } from '../paths.js';
import { loadTaskDefinition } from '../task/task-definition.js';
import { sandboxImageTag } from '../sandbox/sandbox-image.js';
import { loadRequirements, type Requirement } from './spec-requirements.js';
import { stageTree, TREE_LIMITS, type StagedTree, type TreeLimits } from './tree-staging.js';

export { GradingRefusedError } from './grading-container.js';

export interface GradeOptions {
  /** The tree to grade (its root holds the deliverable: the entry points of the task's task.yaml). */
  tree: string;
  /** The task's name: `spec/<name>` and `oracle/<name>`. No default: a grade names its task. */
  spec: string;
  /** Where the spec's requirements live. Default `spec/<spec>`. */
  specDir?: string;
  /** Where the held-out oracle lives. Default `oracle/<spec>`. */
  oracleDir?: string;
  /** Where the shared runner and fork server live. Default `oracle/runner`. */
  runnerDir?: string;
  /**
   * Grade only these cases of the oracle (ids); a requirement is then decided by its cases
   * among them, and one with none among them fails. Default every case. For checks that a
   * subset can settle (harness task check --quick), never for a measurement.
   */
  caseIds?: readonly string[];
  /** Default: a client from the environment (`DOCKER_HOST`). */
  docker?: Docker;
  /** Default: the current sandbox image tag. */
  image?: string;
  /**
   * Per-case wall-clock limit; a program that has not finished is killed, then run again alone after
   * the other cases, with a CPU-time limit of the same seconds (rounded up); it fails only if it runs
   * out of CPU time or of time again alone. Default 3000 ms.
   */
  caseTimeoutMs?: number;
  /** The re-run alone's wall-clock backstop (idle time is charged at caseTimeoutMs). Default 20 x caseTimeoutMs. */
  rerunTimeoutMs?: number;
  /** Cases run at once inside the container (which has 2 CPUs). Default 3. */
  workers?: number;
  /**
   * How each case's program starts: `fork` (default) forks it from an interpreter started
   * before the expectations were read; `exec` starts a fresh `python3 -m` per case. Both
   * give each case its own uid, session and limits; a test holds them to identical results.
   */
  mode?: 'fork' | 'exec';
  /** Limits past which a tree is undeliverable and scores 0. Default TREE_LIMITS. */
  treeLimits?: TreeLimits;
  /**
   * Receives the full differences of failing cases (expected output included), for a
   * person at a terminal. Never part of the result. Default: nothing is revealed.
   */
  reveal?: (text: string) => void;
  /** Run id for the grading container's labels (so `sandbox prune` finds orphans). Default `grade`. */
  runId?: string;
  /** Shared with the run's sandboxes: once closed, no grading container starts. Default: never closed. */
  shutdown?: ContainerShutdown;
}

/** The shared runner's files, staged in every grading's oracle dir. */
export const RUNNER_FILES: readonly string[] = ['fork_server.py', 'runner.py'];

/** Files the oracle dir may hold once the runner has deleted its expectations: the runner's and the judge's. */
function oracleAllowlist(oracle: Oracle): string[] {
  return [...RUNNER_FILES, ...oracle.judgeFiles].sort();
}
const TEST_FILE = /^(test_.*|.*_test)\.py$/;
/** Entries of the scaffolding measured at most: past it the size is reported as partial. */
export const SCAFFOLDING_MEASURE_LIMIT = 1_000_000;

/** What a grading needs of a task: its requirements, its oracle and the package each case runs. */
export interface SpecOracle {
  oracle: Oracle;
  requirements: Requirement[];
  /** The deliverable's package (task.yaml), run by every case as `python3 -m`. */
  module: string;
}

const loaded = new Map<string, Promise<SpecOracle>>();

/** Spec requirements, task definition and oracle cases, loaded and validated once per process. */
export function loadSpecOracle(spec: string, dirs: { specDir?: string; oracleDir?: string } = {}): Promise<SpecOracle> {
  const sDir = dirs.specDir ?? specDir(spec);
  const oDir = dirs.oracleDir ?? oracleDir(spec);
  const key = `${sDir}\0${oDir}`;
  let entry = loaded.get(key);
  if (!entry) {
    entry = (async () => {
      const [requirements, task] = await Promise.all([loadRequirements(sDir), loadTaskDefinition(sDir)]);
      return { requirements, module: task.deliverable.package, oracle: await loadOracle(oDir, requirements) };
    })();
    entry.catch(() => loaded.delete(key));
    loaded.set(key, entry);
  }
  return entry;
}

/**
 * Grade a tree with the held-out oracle, in a container built for this grading alone from a
 * scratch copy of the tree beside a copy of the oracle. See oracle/runner/runner.py for the
 * order of events inside; this side stages the tree (no link that leaves it), then re-checks
 * that the expectations are gone and refuses the measurement if anything but the allowlist
 * remains. Whatever the tree holds, it gets a score: only the oracle's own failure refuses.
 */
export async function gradeTree(options: GradeOptions): Promise<GradeResult> {
  const spec = options.spec;
  const docker = options.docker ?? new Docker();
  const image = options.image ?? sandboxImageTag();
  const mode = options.mode ?? 'fork';
  const tree = await realpath(path.resolve(options.tree)).catch(() => path.resolve(options.tree));
  const treeStat = await lstat(tree).catch(() => null);
  if (!treeStat?.isDirectory()) throw new GradingRefusedError(`${options.tree} is not a directory; pass the root of the tree to grade.`);
  const loaded = await loadSpecOracle(spec, options);
  const { requirements, module } = loaded;
  const oracle = options.caseIds ? oracleSubset(loaded.oracle, options.caseIds) : loaded.oracle;
  await assertDockerReachable(docker);
  await docker.getImage(image).inspect().catch((cause) => {
    throw new SandboxImageMissingError(image, { cause });
  });

  const started = performance.now();
  const scratch = await makeScratch(options.runId ?? 'grade');
  try {
    const staged = await stageScratch(scratch, tree, { oracle, requirements, module }, options.treeLimits ?? TREE_LIMITS, options.runnerDir);
    const deliverable = await measure(tree, { limit: TREE_LIMITS.entries, skipRoot: WORKSPACE_SCAFFOLDING.names });
    const base = { spec, tree, requirements, staged, testFiles: deliverable.testFiles, scaffolding: await measureScaffolding(tree) };
    if (staged.tree.undeliverable) return undeliverable({ ...base, oracle, ms: performance.now() - started });
    const report = await runGradingContainer(docker, {
      image,
      scratch,
      cases: oracle.cases.length,
      caseTimeoutMs: options.caseTimeoutMs ?? 3000,
      rerunTimeoutMs: options.rerunTimeoutMs ?? 20 * (options.caseTimeoutMs ?? 3000),
      workers: options.workers ?? 3,
      mode,
      reveal: Boolean(options.reveal),
      runId: options.runId ?? 'grade',
      judgeFiles: oracle.judgeFiles,
    }, options.shutdown);
    const leftovers = (await readdir(path.join(scratch, 'oracle'))).sort();
    if (leftovers.join() !== oracleAllowlist(oracle).join()) {
      throw new GradingRefusedError(`oracle expectations were not deleted before grading: ${leftovers.join(', ')} remain; measurement refused.`);
    }
    const dataNow = await listTree(path.join(scratch, 'data'));
    if (dataNow.join('\n') !== staged.data.join('\n')) {
      throw new GradingRefusedError('the staged data sets changed during grading; measurement refused.');
    }
    if (!report.integrity.expectations_deleted || report.integrity.violation) {
      throw new GradingRefusedError(`runner reported an integrity violation: ${report.integrity.violation ?? 'expectations not deleted'}; measurement refused.`);
    }
    if (options.reveal) options.reveal(revealFailures(oracle.cases, report));
    return summarise(report, { ...base, ms: performance.now() - started });
  } finally {
    await removeScratch(scratch);
  }
}

/**
 * Lays out a grading's scratch folder: oracle/ (the shared runner and fork server, the task's judge and its modules, the expectations), data/,
 * tree/ (staged by stageTree: the deliverable, without the engine's scaffolding) and out/. Exported for tests that tamper with a staged
 * scratch to check that the runner's own defences hold without the harness's.
 */
export async function stageScratch(scratch: string, tree: string, { oracle, requirements, module }: SpecOracle, limits: TreeLimits = TREE_LIMITS, runner = runnerDir()): Promise<{ data: string[]; tree: StagedTree }> {
  for (const d of ['oracle', 'data', 'tree', 'out']) await mkdir(path.join(scratch, d));
  // Only the runner, its fork server, the judge and the expectations are staged: nothing compiled, nothing else.
  for (const file of RUNNER_FILES) await copyFile(path.join(runner, file), path.join(scratch, 'oracle', file));
  for (const file of oracle.judgeFiles) await copyFile(path.join(oracle.dir, file), path.join(scratch, 'oracle', file));
  const bundle = { spec: oracle.name, module, requirements: requirements.map((r) => r.id), cases: oracle.cases };
  await writeFile(path.join(scratch, 'oracle', 'expectations.json'), JSON.stringify(bundle));
  for (const name of oracle.datasets) {
    await cp(path.join(oracle.dir, 'data', name), path.join(scratch, 'data', name), { recursive: true });
  }
  const staged = await stageTree(tree, path.join(scratch, 'tree'), limits, { exclude: WORKSPACE_SCAFFOLDING.names });
  return { data: await listTree(path.join(scratch, 'data')), tree: staged };
}

interface Basis {
  spec: string;
  tree: string;
  requirements: Requirement[];
  staged: { tree: StagedTree };
  testFiles: number;
  scaffolding: ScaffoldingSize;
  ms: number;
}

function summarise(report: RunnerReport, b: Basis): GradeResult {
  const rows = b.requirements.map((r) => {
    const verdict = report.requirements[r.id] ?? { pass: false, passed: 0, total: 0 };
    const failures = report.cases.filter((c) => c.req === r.id && !c.pass).map((c) => ({ case: c.id, reason: c.reason ?? 'failed' }));
    return { id: r.id, title: r.title, ...verdict, failures };
  });
  return GradeResult.parse({
    version: 2,
    spec: b.spec,
    tree: b.tree,
    satisfied: rows.filter((r) => r.pass).length,
    total: b.requirements.length,
    casesPassed: report.cases.filter((c) => c.pass).length,
    casesTotal: report.cases.length,
    testFiles: b.testFiles,
    scaffolding: b.scaffolding,
    requirements: rows,
    skipped: b.staged.tree.skipped,
    skippedCount: b.staged.tree.skippedCount,
    undeliverable: null,
    mode: report.mode,
    compile: report.compile && { ok: report.compile.ok, note: report.compile.note },
    integrityChecks: report.integrity.checks + 1,
    reruns: report.cases.flatMap((c) => (c.rerun ? [{ case: c.id, firstMs: c.rerun.first_ms, ms: c.rerun.ms, cpuMs: c.rerun.cpu_ms, cpuLimitS: c.rerun.cpu_limit_s, outcome: c.rerun.outcome }] : [])),
    elapsedMs: Math.round(b.ms),
  });
}

/** A tree past the staging limits: graded as delivering nothing, with the reason. */
function undeliverable(b: Basis & { oracle: Oracle }): GradeResult {
  const rows = b.requirements.map((r) => ({ id: r.id, title: r.title, pass: false, passed: 0, total: b.oracle.requirementMap[r.id]?.length ?? 0, failures: [] }));
  return GradeResult.parse({
    version: 2,
    spec: b.spec,
    tree: b.tree,
    satisfied: 0,
    total: b.requirements.length,
    casesPassed: 0,
    casesTotal: b.oracle.cases.length,
    testFiles: b.testFiles,
    scaffolding: b.scaffolding,
    requirements: rows,
    skipped: [],
    skippedCount: 0,
    undeliverable: b.staged.tree.undeliverable,
    mode: null,
    compile: null,
    integrityChecks: 0,
    elapsedMs: Math.round(b.ms),
  });
}

/** Every path under root, relative and sorted: what was staged, to compare after grading. */
async function listTree(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((e) => path.relative(root, path.join(e.parentPath, e.name))).sort();
}

interface Measured {
  entries: number;
  files: number;
  bytes: number;
  testFiles: number;
  partial: boolean;
}

/**
 * Entries, regular files, their bytes and the test files among them under `dir`, walked without
 * following a link, up to `limit` entries (then `partial`). `skipRoot` names root entries left out.
 */
async function measure(dir: string, o: { limit: number; skipRoot?: readonly string[] }): Promise<Measured> {
  const out: Measured = { entries: 0, files: 0, bytes: 0, testFiles: 0, partial: false };
  const walk = async (at: string, depth: number): Promise<void> => {
    if (depth > 64) return;
    const entries = await readdir(at, { withFileTypes: true, encoding: 'buffer' }).catch(() => []);
    for (const e of entries) {
      const name = e.name.toString('latin1');
      if (depth === 0 && o.skipRoot?.includes(name)) continue;
      if (++out.entries > o.limit) {
        out.entries = o.limit;
        out.partial = true;
        return;
      }
      if (e.isFile()) {
        out.files++;
        out.bytes += await lstat(path.join(at, name)).then((st) => st.size, () => 0);
        if (TEST_FILE.test(name)) out.testFiles++;
      } else if (e.isDirectory()) await walk(path.join(at, name), depth + 1);
      if (out.partial) return;
    }
  };
  await walk(dir, 0);
  return out;
}

/** The engine's scaffolding in the tree (never staged, never graded), measured apart. */
async function measureScaffolding(tree: string): Promise<ScaffoldingSize> {
  const total: ScaffoldingSize = { entries: 0, files: 0, bytes: 0, testFiles: 0, partial: false };
  for (const name of WORKSPACE_SCAFFOLDING.names) {
    const at = path.join(tree, name);
    const st = await lstat(at).catch(() => null);
    if (!st) continue;
    total.entries++;
    if (st.isFile()) {
      total.files++;
      total.bytes += st.size;
    } else if (st.isDirectory()) {
      const m = await measure(at, { limit: SCAFFOLDING_MEASURE_LIMIT - total.entries });
      total.entries += m.entries;
      total.files += m.files;
      total.bytes += m.bytes;
      total.testFiles += m.testFiles;
      total.partial ||= m.partial;
    }
  }
  return total;
}
