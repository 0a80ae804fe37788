import type { SubtaskReply } from '../runtime/replies.js';

/**
 * Width brake: the most children one planning node may have (the manifest's `max_children`).
 * Depth is what a sweep measures; breadth is only its bill (b^d leaves at cap d), so the
 * breadth is bounded like the depth, deterministically and in every arm. Unlike the depth brake
 * (checked before a split, never asking again) a width can only be seen in a plan, so a plan
 * that splits wider is refused and the planner is asked once more with the bound stated; a
 * plan still too wide is cut by {@link cutToWidth}. Every refusal is an event.
 */

/** What the planner is told when its plan splits wider than the bound: the whole rule, so it can obey it. */
export function widthReask(asked: number, maxChildren: number): string {
  return [
    `Your plan splits into ${asked} pieces, but a node may have at most ${maxChildren} children.`,
    `Return the whole plan again with at most ${maxChildren} subtasks: group related pieces into one subtask (a piece that is still too large will be split again below it), and keep every claim.`,
    `A plan that is still wider is cut: the first ${maxChildren - 1} subtasks are kept and every later one is merged into subtask ${maxChildren}.`,
  ].join(' ');
}

/**
 * The cut, written down: the first `maxChildren - 1` subtasks are kept as they are, and the
 * trailing ones are merged into subtask `maxChildren`, which keeps its slug; its goal is the
 * trailing goals in order (a blank line between them), its claims, artifacts and criteria the
 * concatenation of theirs in order, nothing dropped, so no requirement a piece claimed is lost. The merged
 * piece is a prerequisite when any merged piece was (built whole, before its siblings), and work
 * when any was. A plan within the bound is returned unchanged.
 */
export function cutToWidth(subtasks: readonly SubtaskReply[], maxChildren: number): SubtaskReply[] {
  if (!Number.isInteger(maxChildren) || maxChildren < 2) throw new RangeError(`maxChildren must be a whole number of at least 2, got ${maxChildren}`);
  if (subtasks.length <= maxChildren) return [...subtasks];
  const kept = subtasks.slice(0, maxChildren - 1);
  const trailing = subtasks.slice(maxChildren - 1);
  const merged: SubtaskReply = {
    slug: trailing[0]!.slug,
    goal: trailing.map((s) => s.goal).join('\n\n'),
    kind: trailing.some((s) => s.kind === 'work') ? 'work' : 'decision',
    prerequisite: trailing.some((s) => s.prerequisite),
    artifacts: trailing.flatMap((s) => s.artifacts),
    criteria: trailing.flatMap((s) => s.criteria),
    claims: trailing.flatMap((s) => s.claims),
  };
  return [...kept, merged];
}
