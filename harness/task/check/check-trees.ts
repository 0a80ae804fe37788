import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyMutants } from '../../grading/oracle-mutants.js';
import type { GradeResult } from '../../grading/grading-report.js';
import { applyDefects, defectById } from '../../sim/defect-table.js';
import type { GradedTree } from './check-result.js';
import type { PlannedTree } from './grading-plan.js';
import type { TaskMaterial } from './check-material.js';
import { buildPeerTree } from './peers.js';

/**
 * Writes a planned tree to disk (under `root`, in a folder of its own) and reduces a grading
 * of it to what the pure checks read.
 */

async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<string> {
  await mkdir(dir, { recursive: true });
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

/**
 * A program that ignores its input, as the task's deliverable: its `__main__.py` entry points
 * print the constant and exit; every other entry point is empty.
 */
export function constantProgram(entryPoints: readonly string[], t: { exit: number; stdout: string; stderr: string }): Record<string, string> {
  const program = `import sys\nsys.stdout.write(${JSON.stringify(t.stdout)})\nsys.stderr.write(${JSON.stringify(t.stderr)})\nsys.exit(${t.exit})\n`;
  const mains = entryPoints.filter((p) => path.posix.basename(p) === '__main__.py');
  return Object.fromEntries(entryPoints.map((p) => [p, mains.length === 0 || mains.includes(p) ? program : '']));
}

/** The folder holding the planned tree, written under `root` as `dir` (a fresh name). */
export async function materialise(m: TaskMaterial, planned: PlannedTree, root: string, dir: string): Promise<string> {
  const at = path.join(root, dir);
  switch (planned.kind) {
    case 'reference':
      return m.reference;
    case 'empty':
      return writeFiles(at, {});
    case 'constant':
      return writeFiles(at, constantProgram(m.definition.deliverable.entry_points, planned));
    case 'mutants': {
      const byId = new Map(m.mutants.map((x) => [x.id, x]));
      await applyMutants(m.reference, planned.members.map((id) => byId.get(id)!), at);
      return at;
    }
    case 'peer':
      return buildPeerTree(m.peers.find((p) => p.name === planned.members[0])!, at);
    case 'corpus': {
      if (!m.corpus.ok) throw new Error(m.corpus.problem);
      const corpus = m.corpus.corpus;
      return writeFiles(at, applyDefects(corpus.files, planned.members.map((id) => defectById(corpus.defects, id))));
    }
  }
}

export function gradedTree(planned: PlannedTree, result: GradeResult, cases = planned.cases): GradedTree {
  return {
    ...(cases ? { cases: [...cases] } : {}),
    name: planned.name,
    kind: planned.kind,
    members: [...planned.members],
    mode: result.mode ?? (planned.kind === 'mutants' ? planned.mode : 'fork'),
    satisfied: result.satisfied,
    total: result.total,
    failing: result.requirements.filter((r) => !r.pass).map((r) => r.id).sort(),
    passing: result.requirements.filter((r) => r.pass).map((r) => r.id).sort(),
    failedCases: result.requirements
      .flatMap((r) => r.failures.map((f) => ({ case: f.case, req: r.id, reason: f.reason })))
      .sort((a, b) => a.case.localeCompare(b.case)),
  };
}
