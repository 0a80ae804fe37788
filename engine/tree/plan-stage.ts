import { ContractMissingError } from '../base/errors.js';
import type { NodeRecord } from '../court/node-record.js';
import type { ChatMessage } from '../ports/model-client.js';
import { briefSections } from '../runtime/brief.js';
import type { Task } from '../runtime/engine-context.js';
import { PlanReply } from '../runtime/replies.js';
import { openingMessages } from '../runtime/request-layout.js';
import { askStructured } from '../runtime/structured.js';
import { stamp } from '../ports/events.js';
import { cutToWidth, widthReask } from './width-rule.js';
import type { TreeContext } from './tree-context.js';

/** The root owns the contract: a split there without a layout leaves every child to invent its own. */
function missingContract(task: Task, plan: PlanReply): boolean {
  return task.depth === 0 && plan.mode === 'split' && !plan.layout?.trim();
}

/**
 * Asks the planner to execute or split. A root that splits without a layout is asked once
 * more, in the same conversation; a second plan without one stops the node
 * ({@link ContractMissingError}) rather than letting the children diverge. A plan wider than
 * the tree's `maxChildren` is then held to it ({@link boundWidth}).
 */
export async function planNode(ctx: TreeContext, task: Task, record: NodeRecord, session: (r: string) => string): Promise<PlanReply> {
  const sessionId = session('planner');
  const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
    role: 'planner', brief: briefSections(ctx, task),
    head: `## Task: plan\n\nYou are at depth ${task.depth}${task.depth === 0 ? ' (the root: you own the layout and interfaces)' : ''}.${ctx.maxChildren !== null ? ` A split may have at most ${ctx.maxChildren} children.` : ''}\n\n`,
  });
  const first = await askStructured(ctx.router, 'planner', PlanReply, { sessionId, messages });
  if (!missingContract(task, first.value)) {
    return boundWidth(ctx, task, record, session, first.value, [...messages, { role: 'assistant', content: first.response.content ?? '' }]);
  }
  record.note(first.value.assumptions);
  const asked: ChatMessage[] = [
    ...messages,
    { role: 'assistant', content: first.response.content ?? '' },
    { role: 'user', content: 'Your plan splits the root but states no layout. Before any child starts, state the file layout and the interfaces every child must use (the "layout" field), then return the whole plan again.' },
  ];
  const again = await askStructured(ctx.router, 'planner', PlanReply, { sessionId, messages: asked });
  if (missingContract(task, again.value)) {
    record.assume(again.value.assumptions);
    throw new ContractMissingError(task.id);
  }
  return boundWidth(ctx, task, record, session, again.value, [...asked, { role: 'assistant', content: again.response.content ?? '' }]);
}

/**
 * Holds a plan to the tree's `maxChildren` (see width-rule.ts). A plan within it is adopted as
 * it is. A wider one is refused and asked for again ONCE, in a new planner session (a real model
 * call, so it counts as a session and its tokens are charged like any other) that continues the
 * conversation with the bound stated; an answer still too wide is cut by {@link cutToWidth}.
 * Every refusal is journalled as a `width_bounded` event: the widths asked, answered and kept.
 */
async function boundWidth(ctx: TreeContext, task: Task, record: NodeRecord, session: (r: string) => string, plan: PlanReply, conversation: ChatMessage[]): Promise<PlanReply> {
  const bound = ctx.maxChildren;
  if (bound === null || plan.mode !== 'split' || plan.subtasks.length <= bound) {
    record.assume(plan.assumptions);
    return plan;
  }
  record.note(plan.assumptions);
  const again = await askStructured(ctx.router, 'planner', PlanReply, {
    sessionId: session('planner'),
    messages: [...conversation, { role: 'user', content: widthReask(plan.subtasks.length, bound) }],
  });
  record.assume(again.value.assumptions);
  // The contract was already stated: an answer that drops it keeps the first plan's layout.
  const layout = again.value.layout?.trim() ? again.value.layout : plan.layout;
  const answered = again.value.mode === 'split' ? again.value.subtasks.length : 0;
  const subtasks = again.value.mode === 'split' ? cutToWidth(again.value.subtasks, bound) : [];
  ctx.events.emit({
    type: 'width_bounded', ...stamp(ctx.clock, task.id),
    maxChildren: bound, asked: plan.subtasks.length, reasked: true, answered, kept: subtasks.length, cut: answered > bound,
  });
  return { ...again.value, layout, subtasks };
}
