import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { UsageError } from '../../exit-codes.js';
import { gradeTree } from '../../grading/grader.js';
import type { CheckReport, GradedTree } from './check-result.js';
import { evaluateCheck } from './evaluate.js';
import { gradingPlan, PARTS, type Part, type PlannedTree } from './grading-plan.js';
import { loadTaskMaterial, type TaskFolders, type TaskMaterial } from './check-material.js';
import { gradedTree, materialise } from './check-trees.js';
import { settledGrading } from './settled-grading.js';
import { packageFiles } from './peers.js';

/** Options of {@link runTaskCheck}. */
export interface TaskCheckOptions extends TaskFolders {
  task: string;
  /** The parts to run. Default all: static, baselines, mutants, corpus. */
  parts?: readonly Part[];
  /** Every mutant alone both ways / every defect alone too. Default neither. */
  exhaustive?: { mutants: boolean; corpus: boolean };
  /** The slice of packed mutant groups. Default the UTC day's. */
  slice?: number;
  /** Grade only these mutants, alone. Default: the slice and the sample. */
  mutants?: readonly string[];
  /** Grade only these planted defects, alone. Default: the groupings and subsets. */
  defects?: readonly string[];
  /** The quick form: fewer trees of each kind, turning with the UTC day (what `npm test` runs). Default false. */
  quick?: boolean;
  /** Gradings at once. Default 2 (each grading container has 2 CPUs). */
  concurrency?: number;
  /** Per-case limit: generous, so a loaded machine cannot turn a slow case into a break. Default 20000 ms. */
  caseTimeoutMs?: number;
  /** Receives one line per grading started and finished (the command writes them to stderr). Default: none. */
  progress?: (line: string) => void;
}

/**
 * `harness task check`: loads the task, grades the planned trees through the real grader
 * (Docker), and evaluates every property of the battery on the gradings.
 */
export async function runTaskCheck(o: TaskCheckOptions): Promise<CheckReport> {
  const started = performance.now();
  const m = await loadTaskMaterial(o.task, o);
  const parts = o.parts ?? PARTS;
  const exhaustive = o.exhaustive ?? { mutants: false, corpus: false };
  refuseUnknown(m, o);
  const defects = m.corpus.ok ? m.corpus.corpus.defects : null;
  if (parts.includes('peers')) await checkPeerPackages(m);
  const plan = gradingPlan({ cases: m.oracle.cases, mutants: m.mutants, referenceSources: m.referenceSources, defects, peers: m.peers.map((p) => p.name) }, { parts, exhaustive, slice: o.slice, mutants: o.mutants, defects: o.defects, quick: o.quick });
  for (const note of plan.notes) o.progress?.(`${o.task}: ${note}`);
  const trees = await gradeAll(m, plan.trees, o);
  const properties = evaluateCheck({
    requirements: m.requirements.map((r) => r.id),
    outputRequirements: m.outputRequirements,
    dependsOn: m.definition.depends_on,
    cases: m.oracle.cases,
    requirementMap: m.oracle.requirementMap,
    mutants: m.mutants,
    spec: m.spec,
    sentenceMap: m.sentenceMap,
    exampleMap: m.exampleMap,
    corpus: m.corpus.ok ? { ok: true, defects: m.corpus.corpus.defects } : m.corpus,
    peers: m.peers,
    parts,
    trees,
  });
  return {
    version: 1,
    task: o.task,
    exhaustive,
    pass: properties.every((p) => p.status !== 'fail'),
    gradings: trees.length,
    elapsedMs: Math.round(performance.now() - started),
    properties,
  };
}

/** Every peer's packages are installed, before any grading starts: a missing one stops the check, naming the apt command. */
async function checkPeerPackages(m: TaskMaterial): Promise<void> {
  for (const peer of m.peers) for (const pkg of peer.recipe.packages) await packageFiles(pkg.name, peer.name);
}

function refuseUnknown(m: TaskMaterial, o: TaskCheckOptions): void {
  const unknownMutants = (o.mutants ?? []).filter((id) => !m.mutants.some((x) => x.id === id));
  if (unknownMutants.length) throw new UsageError(`--mutants: ${unknownMutants.join(', ')} not in ${path.join(m.dirs.oracleDir, 'mutants.yaml')}`);
  const known = m.corpus.ok ? m.corpus.corpus.defects : [];
  const unknownDefects = (o.defects ?? []).filter((id) => !known.some((d) => d.id === id));
  if (unknownDefects.length) throw new UsageError(`--defects: ${unknownDefects.join(', ')} not in the corpus's defect table`);
}

async function gradeAll(m: TaskMaterial, planned: readonly PlannedTree[], o: TaskCheckOptions): Promise<GradedTree[]> {
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-task-check-'));
  const queue = new PQueue({ concurrency: o.concurrency ?? 2 });
  let done = 0;
  try {
    return await Promise.all(
      planned.map((t, i) =>
        queue.add(async () => {
          const tree = await materialise(m, t, root, `tree-${i}`);
          const grade = (caseIds?: readonly string[]) =>
            gradeTree({
              tree,
              spec: m.task,
              specDir: m.dirs.specDir,
              oracleDir: m.dirs.oracleDir,
              caseTimeoutMs: o.caseTimeoutMs ?? 20_000,
              mode: t.kind === 'mutants' ? t.mode : 'fork',
              runId: 'task-check',
              ...(caseIds ? { caseIds } : {}),
            });
          const t0 = performance.now();
          const { result, cases } = await settledGrading(t, grade, (line) => o.progress?.(`${m.task}: ${line}`));
          const on = cases ? ` (${cases.length} of ${m.oracle.cases.length} cases)` : '';
          o.progress?.(`${m.task}: graded ${++done}/${planned.length} ${t.name}${on}: ${result.satisfied}/${result.total} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
          return gradedTree(t, result, cases);
        }),
      ),
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
