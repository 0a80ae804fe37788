import type { Check, CheckResult } from '../base/check.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { briefSections } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { openingMessages } from '../runtime/request-layout.js';
import { OpinionReply } from '../runtime/replies.js';
import { READ_ONLY_TOOLS } from '../runtime/tools.js';
import { runChecks } from './checks.js';
import { inDetachedCopy } from './detached-copy.js';
import { askJudge } from './judge-answer.js';
import type { VerifierOpinion } from './gate.js';

/** The families that produced work on the current node, as answered: none of them may judge. */
function contributors(ctx: EngineContext): string[] {
  return [...ctx.accounting.current().contributorFamilies];
}

export interface Verification {
  results: CheckResult[];
  opinion: VerifierOpinion | null;
}

/**
 * The independent re-run. The engine runs every check again in a fresh container on a
 * detached copy of the workspace (a reported pass is not evidence; checks that write files
 * still work, and the judged tree stays byte-identical), then a verifier of a family that
 * contributed nothing reads the copy with read-only tools and gives its opinion. It is never
 * shown the worker's transcript or claims.
 */
export async function verifyWork(
  ctx: EngineContext,
  task: Task,
  checks: Check[],
  workspaceDir: string,
  session: (r: string) => string,
  by: 'verifier' | 'seam' = 'verifier',
): Promise<Verification> {
  return inDetachedCopy(ctx, task, workspaceDir, 'verify', async (sandbox) => {
    const results = await runChecks(sandbox, checks);
    ctx.events.emit({ type: 'checks_run', ...stamp(ctx.clock, task.id), by, results });
    const listing = await sandbox.listFiles();
    const exclude = contributors(ctx);
    const sessionId = session('verifier');
    const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
      role: 'verifier', brief: briefSections(ctx, task), head: '## Task: is the work done?\n\n',
      tail: `\n\n## Checks, as just re-run for you\n${results
        .map((r, i) => `- ${r.passed ? 'PASS' : 'FAIL'} ${r.id}: \`${checks[i]?.command}\`${r.passed ? '' : `\n  output: ${r.output.slice(-600)}`}`)
        .join('\n')}\n\n## Files\n${listing.join('\n') || '(none)'}\n\nInspect what you need, then return {"verdict": ..., "findings": [...]}.`,
    });
    const answer = await askJudge(ctx, task, {
      role: 'verifier', sessionId, messages, tools: READ_ONLY_TOOLS, sandbox, checks, schema: OpinionReply, excludeFamilies: exclude,
      askAgain: 'Give your final answer now as the JSON object {"verdict": ..., "findings": [...]}.',
    });
    // Nobody independent could judge, or the answer stayed unreadable: no sign-off, so the gate forces NOT_DONE.
    const opinion: VerifierOpinion | null = answer ? { ...answer.value, model: answer.model, family: answer.family } : null;
    if (opinion) {
      ctx.events.emit({ type: 'verifier_opinion', ...stamp(ctx.clock, task.id), ...opinion });
    }
    return { results, opinion };
  });
}
