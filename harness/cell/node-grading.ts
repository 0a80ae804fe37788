import { access } from 'node:fs/promises';
import path from 'node:path';
import type { NodeResult } from '../../engine/index.js';
import type { GradeResult } from '../grading/grading-report.js';

/**
 * Grading trees below the root (`grade_merges`, `grade_leaves`): a node's tree is graded by the
 * oracle as the root's is, when it holds every entry point of the deliverable. Any other tree is
 * a piece of the deliverable, "not gradable here", never a failure.
 */

/** A node's grade, or why its tree could not be graded there. */
export type NodeGrade = { status: 'graded'; grade: GradeResult } | { status: 'not_gradable'; reason: string };

/** What to grade below the root, with the entry points the spec's task declares. */
export interface NodeGrading {
  entryPoints: readonly string[];
}

/** Gradings of one arm's trees in flight at once: each is its own container. */
const GRADINGS_AT_ONCE = 4;

/** Grades each node's tree as it stands, at most GRADINGS_AT_ONCE at a time; by node id. */
export async function gradeNodes(nodes: readonly NodeResult[], entryPoints: readonly string[], grade: (workspace: string) => Promise<GradeResult>): Promise<Map<string, NodeGrade>> {
  const out = new Map<string, NodeGrade>();
  let next = 0;
  const worker = async () => {
    while (next < nodes.length) {
      const node = nodes[next++]!;
      const missing: string[] = [];
      for (const entry of entryPoints) await access(path.join(node.workspace, entry)).catch(() => missing.push(entry));
      out.set(node.id, missing.length ? { status: 'not_gradable', reason: `its tree has no ${missing.join(', ')}` } : { status: 'graded', grade: await grade(node.workspace) });
    }
  };
  await Promise.all(Array.from({ length: Math.min(GRADINGS_AT_ONCE, nodes.length) }, worker));
  return out;
}

/** Every node below the root that ran a merge: its merged tree is what grade_merges grades (the root's grade is the cell's own). */
export function mergedNodes(root: NodeResult, all: readonly NodeResult[]): NodeResult[] {
  return all.filter((n) => n !== root && n.children.length > 0 && (n.merge?.attempts.length ?? 0) > 0);
}

/** Every leaf below the root: its own tree is what grade_leaves grades (a root that executed whole is graded as the cell). */
export function leafNodes(root: NodeResult, all: readonly NodeResult[]): NodeResult[] {
  return all.filter((n) => n !== root && n.children.length === 0);
}
