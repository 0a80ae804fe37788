import type { Check } from '../base/check.js';
import { NoEligibleModelError } from '../base/errors.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { briefSections } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { openingMessages } from '../runtime/request-layout.js';
import { AdequacyReply } from '../runtime/replies.js';
import { askStructured } from '../runtime/structured.js';
import { establishChecks } from './check-stage.js';
import type { NodeRecord } from './node-record.js';

type Adequacy = { independent: true; adequate: boolean; reason: string; missing: string[] } | { independent: false; reason: string };

/**
 * Meta-verification: would passing these checks actually prove the goal? Asked only of a
 * family that contributed nothing. With none available the answer is "nobody independent
 * can say", never a silent yes.
 */
async function metaVerify(ctx: EngineContext, task: Task, checks: Check[], listing: string[], session: (r: string) => string): Promise<Adequacy> {
  const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
    role: 'verifier', brief: briefSections(ctx, task), head: '## Task: are the checks adequate?\n\n',
    tail: `\n\n## Checks\n${JSON.stringify(checks, null, 2)}\n\n## Files in the workspace\n${listing.join('\n') || '(none)'}\n\nReturn {"adequate": ..., "reason": ..., "missing": [...]}.`,
  });
  try {
    const { value, response } = await askStructured(ctx.router, 'verifier', AdequacyReply, {
      sessionId: session('verifier'), messages, excludeFamilies: [...ctx.accounting.current().contributorFamilies],
    });
    ctx.events.emit({ type: 'meta_verified', ...stamp(ctx.clock, task.id), adequate: value.adequate, reason: value.reason, model: response.model });
    return { independent: true, ...value };
  } catch (error) {
    if (error instanceof NoEligibleModelError) return { independent: false, reason: error.message };
    throw error;
  }
}

export type Settlement = { ok: true; checks: Check[] } | { ok: false; verdict: 'CHECKS_INADEQUATE' | 'NOT_DONE'; reason: string };

/**
 * Are these checks fit to decide DONE? An independent verifier judges them; a weak set is
 * rewritten once per node, ever, judged again, and then kept or refused. A leaf's checks
 * and a parent's seam checks go through the same court.
 */
export async function settleChecks(
  ctx: EngineContext,
  task: Task,
  o: { checks: Check[]; listing: () => Promise<string[]>; session: (r: string) => string; record: NodeRecord; extra?: string },
): Promise<Settlement> {
  const notIndependent = (reason: string): Settlement => ({ ok: false, verdict: 'NOT_DONE', reason: `no family that contributed nothing could judge whether the checks prove the goal: ${reason}` });
  const inadequate = (reason: string): Settlement => ({ ok: false, verdict: 'CHECKS_INADEQUATE', reason: `the checks are judged too weak to prove the goal: ${reason}` });
  let meta = await metaVerify(ctx, task, o.checks, await o.listing(), o.session);
  if (!meta.independent) return notIndependent(meta.reason);
  if (meta.adequate) return { ok: true, checks: o.checks };
  if (o.record.checkRewrites > 0) return inadequate(meta.reason);
  o.record.checkRewrites++;
  const rewritten = await establishChecks(ctx, task, {
    reason: 'inadequate', previous: o.checks, guidance: [meta.reason, ...meta.missing], session: o.session, record: o.record, extra: o.extra,
  });
  o.record.checks = rewritten.checks;
  if (rewritten.short) return inadequate(rewritten.short);
  meta = await metaVerify(ctx, task, rewritten.checks, await o.listing(), o.session);
  if (!meta.independent) return notIndependent(meta.reason);
  return meta.adequate ? { ok: true, checks: rewritten.checks } : inadequate(meta.reason);
}
