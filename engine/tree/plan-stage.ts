import { ContractMissingError } from '../base/errors.js';
import type { NodeRecord } from '../court/node-record.js';
import type { ChatMessage } from '../ports/model-client.js';
import { briefSections } from '../runtime/brief.js';
import type { Task } from '../runtime/engine-context.js';
import { PlanReply } from '../runtime/replies.js';
import { openingMessages } from '../runtime/request-layout.js';
import { askStructured } from '../runtime/structured.js';
import type { TreeContext } from './tree-context.js';

/** The root owns the contract: a split there without a layout leaves every child to invent its own. */
function missingContract(task: Task, plan: PlanReply): boolean {
  return task.depth === 0 && plan.mode === 'split' && !plan.layout?.trim();
}

/**
 * Asks the planner to execute or split. A root that splits without a layout is asked once
 * more, in the same conversation; a second plan without one stops the node
 * ({@link ContractMissingError}) rather than letting the children diverge.
 */
export async function planNode(ctx: TreeContext, task: Task, record: NodeRecord, session: (r: string) => string): Promise<PlanReply> {
  const sessionId = session('planner');
  const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
    role: 'planner', brief: briefSections(ctx, task),
    head: `## Task: plan\n\nYou are at depth ${task.depth}${task.depth === 0 ? ' (the root: you own the layout and interfaces)' : ''}.\n\n`,
  });
  const first = await askStructured(ctx.router, 'planner', PlanReply, { sessionId, messages });
  if (!missingContract(task, first.value)) {
    record.assume(first.value.assumptions);
    return first.value;
  }
  record.note(first.value.assumptions);
  const again = await askStructured(ctx.router, 'planner', PlanReply, {
    sessionId,
    messages: [
      ...messages,
      { role: 'assistant', content: first.response.content ?? '' },
      { role: 'user', content: 'Your plan splits the root but states no layout. Before any child starts, state the file layout and the interfaces every child must use (the "layout" field), then return the whole plan again.' },
    ],
  });
  record.assume(again.value.assumptions);
  if (missingContract(task, again.value)) throw new ContractMissingError(task.id);
  return again.value;
}
