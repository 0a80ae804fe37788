import type { EngineContext, Task } from './engine-context.js';

/**
 * A node's brief in sections, each a heading and its text, so the request layout
 * (request-layout.ts) can place what repeats across sessions before what is particular.
 */
export interface BriefSections {
  /** `## Goal`: particular to the node. */
  goal: string;
  /** The objective (e.g. the spec): the same for every node of every cell of a sweep. Null: none shown. */
  objective: string | null;
  /** The layout contract: the same for every node under one root's plan. Null: none shown. */
  contract: string | null;
  /** Claims, own criteria, artifacts, a prerequisite's listing: particular to the node, in this order. */
  particulars: string[];
}

/** The task as every role sees it: the goal, the shared objective, the contract and what this piece owns. */
export function briefSections(ctx: Pick<EngineContext, 'objective'>, task: Task): BriefSections {
  const particulars: string[] = [];
  if (task.claims.length) particulars.push(`## Acceptance criteria this piece claims\n${task.claims.map((c) => `- ${c}`).join('\n')}`);
  // The root claims the objective's criteria themselves: list them once.
  const own = task.criteria.filter((c) => !task.claims.includes(c));
  if (own.length) particulars.push(`## Its own criteria\n${own.map((c) => `- ${c}`).join('\n')}`);
  if (task.artifacts.length) particulars.push(`## Artifacts it declares\n${task.artifacts.map((c) => `- ${c}`).join('\n')}`);
  if (task.prerequisiteListing) {
    particulars.push(`## Already built by a prerequisite (real files, present in your workspace)\n${task.prerequisiteListing.join('\n') || '(none)'}`);
  }
  return {
    goal: `## Goal\n${task.goal}`,
    objective: ctx.objective.context ? `## Objective (shared by every piece)\n${ctx.objective.context}` : null,
    contract: task.layout ? `## Layout and interfaces you must use\n${task.layout}` : null,
    particulars,
  };
}

/** The goal alone, with a contract under the stage's own heading (the merger's; the drift judge shows none). */
export function goalSections(task: Task, contract: string | null = null): BriefSections {
  return { goal: `## Goal\n${task.goal}`, objective: null, contract, particulars: [] };
}
