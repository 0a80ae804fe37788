import type { Check } from '../base/check.js';
import { NoEligibleModelError } from '../base/errors.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { brief } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { promptFor } from '../runtime/prompts.js';
import { AdequacyReply } from '../runtime/replies.js';
import { askStructured } from '../runtime/structured.js';

/**
 * Meta-verification: would passing these checks actually prove the goal? Asked of a family
 * that contributed nothing, before the checks are trusted to decide DONE.
 */
export async function metaVerify(ctx: EngineContext, task: Task, checks: Check[], listing: string[], session: (r: string) => string) {
  const messages: ChatMessage[] = [
    { role: 'system', content: promptFor('verifier') },
    {
      role: 'user',
      content: `## Task: are the checks adequate?\n\n${brief(ctx, task)}\n\n## Checks\n${JSON.stringify(checks, null, 2)}\n\n## Files in the workspace\n${listing.join('\n') || '(none)'}\n\nReturn {"adequate": ..., "reason": ..., "missing": [...]}.`,
    },
  ];
  let asked;
  try {
    asked = await askStructured(ctx.router, 'verifier', AdequacyReply, { sessionId: session('verifier'), messages, excludeFamilies: [...ctx.accounting.current().contributorFamilies] });
  } catch (error) {
    // With no independent model there is nobody to judge the checks; the gate will refuse DONE anyway.
    if (error instanceof NoEligibleModelError) return { adequate: true, reason: error.message, missing: [], model: null, family: null };
    throw error;
  }
  const { value, response } = asked;
  ctx.events.emit({ type: 'meta_verified', ...stamp(ctx.clock, task.id), adequate: value.adequate, reason: value.reason, model: response.model });
  return { ...value, model: response.model, family: response.family };
}
