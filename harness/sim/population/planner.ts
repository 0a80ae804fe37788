import type { ModelRequest } from '../../../engine/index.js';
import { criterionLine } from '../../cell/spec-objective.js';
import type { SimTreeNode } from '../sampler.js';
import { answer, type SimReply } from './conversation.js';
import { programFiles } from './sim-checks.js';
import type { SimWorld } from './sim-world.js';

/** What a claim says when the sim drew it unresolved: text that names no requirement. */
export const UNRESOLVED_CLAIM = 'the behaviour this piece owns works as the specification says (SIMULATED vague claim)';

function range(node: Pick<SimTreeNode, 'requirements'>): string {
  const [first, last] = [node.requirements[0]!, node.requirements[node.requirements.length - 1]!];
  return first === last ? first : `${first} to ${last}`;
}

/** The layout the root states: every file of the package and of its tests, which every piece writes whole. */
function layout(world: SimWorld): string {
  const tests = Object.keys(world.corpus.files).filter((f) => f.startsWith('tests/')).sort();
  return [
    `SIMULATED layout: every piece writes the whole ${world.corpus.deliverable.package} package at its workspace root and owns the requirements it claims.`,
    `Program files: ${programFiles(world.corpus).join(', ')}`,
    `Tests (pytest, one file per requirement a piece has working): ${tests.join(', ')}`,
  ].join('\n');
}

/**
 * The SIMULATED planner: the pure tree model's decision at this node (execute, or split into
 * contiguous chunks of its requirements), as a plan reply. A child that will be a leaf claims
 * its requirements as the leaf's draws say, an unresolved claim as text naming none; a child
 * that will split again claims its whole chunk. Where the model drew a split wider than the
 * manifest's max_children, the first plan is that wide split; asked again (the conversation then
 * holds its earlier answer), the planner replans within the bound or repeats the wide plan, as
 * the model's `bound-replan` draw says, so the engine keeps exactly the model's children.
 */
export function plannerReply(world: SimWorld, req: ModelRequest): SimReply {
  const buildArm = world.buildArmOf(req.arm);
  const node = world.node(buildArm, req.nodeId);
  if (node.children.length === 0) return answer({ mode: 'execute', assumptions: [], layout: null, subtasks: [] });
  const { leaves } = world.tree(buildArm);
  const text = new Map(world.requirements.map((r) => [r.id, criterionLine(r)]));
  const claimsOf = (child: SimTreeNode): string[] => {
    const leaf = leaves.get(child.path);
    return leaf ? leaf.claims.map((c) => (c.resolved ? text.get(c.requirement)! : UNRESOLVED_CLAIM)) : child.requirements.map((r) => text.get(r)!);
  };
  const subtask = (part: Pick<SimTreeNode, 'requirements'>, claims: string[]) => ({
    slug: world.slugOf(part), goal: `Build the part of ${world.corpus.deliverable.package} that meets ${range(part)} (SIMULATED)`, kind: 'work', prerequisite: false, artifacts: [], criteria: [], claims,
  });
  const reasked = req.messages.some((m) => m.role === 'assistant');
  const wide = node.wide && !(reasked && node.wide.replanned) ? node.wide.chunks : null;
  return answer({
    mode: 'split',
    assumptions: [],
    layout: node.level === 0 ? layout(world) : null,
    subtasks: wide ? wideSubtasks(node, wide, claimsOf, subtask) : node.children.map((child) => subtask(child, claimsOf(child))),
  });
}

/**
 * The wide plan's pieces. Those the engine's cut keeps are the model's children as they are; the
 * trailing ones, which the cut merges into the last kept child, each claim their share of that
 * child's claims (in order), so the merged claims are exactly the child's.
 */
function wideSubtasks<T>(node: SimTreeNode, chunks: string[][], claimsOf: (child: SimTreeNode) => string[], subtask: (part: { requirements: string[] }, claims: string[]) => T): T[] {
  const last = node.children.length - 1;
  const merged = node.children[last]!;
  // One claim per requirement, in order (a leaf's draws, or its whole chunk's lines).
  const mergedClaims = claimsOf(merged);
  return chunks.map((chunk, i) => {
    if (i < last) return subtask(node.children[i]!, claimsOf(node.children[i]!));
    return subtask({ requirements: chunk }, merged.requirements.flatMap((r, j) => (chunk.includes(r) ? [mergedClaims[j]!] : [])));
  });
}
