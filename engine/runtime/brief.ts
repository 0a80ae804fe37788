import type { EngineContext, Task } from './engine-context.js';

/** The task as every role sees it: the goal, the shared objective, the contract and what this piece owns. */
export function brief(ctx: EngineContext, task: Task): string {
  const parts = [`## Goal\n${task.goal}`];
  if (ctx.objective.context) parts.push(`## Objective (shared by every piece)\n${ctx.objective.context}`);
  if (task.layout) parts.push(`## Layout and interfaces you must use\n${task.layout}`);
  if (task.claims.length) parts.push(`## Acceptance criteria this piece claims\n${task.claims.map((c) => `- ${c}`).join('\n')}`);
  // The root claims the objective's criteria themselves: list them once.
  const own = task.criteria.filter((c) => !task.claims.includes(c));
  if (own.length) parts.push(`## Its own criteria\n${own.map((c) => `- ${c}`).join('\n')}`);
  if (task.artifacts.length) parts.push(`## Artifacts it declares\n${task.artifacts.map((c) => `- ${c}`).join('\n')}`);
  if (task.prerequisiteListing) {
    parts.push(`## Already built by a prerequisite (real files, present in your workspace)\n${task.prerequisiteListing.join('\n') || '(none)'}`);
  }
  return parts.join('\n\n');
}
