import type { ChatMessage } from '../ports/model-client.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { goalSections } from '../runtime/brief.js';
import { openingMessages } from '../runtime/request-layout.js';
import { DriftReply } from '../runtime/replies.js';
import { askStructured } from '../runtime/structured.js';
import type { DriftOpinion } from '../runtime/tool-loop.js';

/**
 * Drift-judge sessions one worker or merger loop may open (the tool loop's `driftAllowance`):
 * the court's stated allowance, which `harness plan` bills per loop. Uncapped, a simulated leaf
 * was seen opening 7 and a bounded sweep passed its plan's session bound; capped, it cannot.
 */
export const DRIFT_ALLOWANCE = 4;

/** The small drift judge a tool loop consults on a monitor trigger: is this work still about the goal? */
export function driftJudgeFor(ctx: EngineContext, task: Task, session: (r: string) => string) {
  return async (recent: string[], trigger: string): Promise<DriftOpinion> => {
    const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
      role: 'drift_judge', brief: goalSections(task), tail: `\n\n## Trigger\n${trigger}\n\n## Recent actions\n${recent.join('\n')}`,
    });
    return (await askStructured(ctx.router, 'drift_judge', DriftReply, { sessionId: session('drift_judge'), messages })).value;
  };
}
