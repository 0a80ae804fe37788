import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Check, CheckResult } from '../base/check.js';
import { NoEligibleModelError, StructuredOutputError } from '../base/errors.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { brief } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { promptFor } from '../runtime/prompts.js';
import { OpinionReply } from '../runtime/replies.js';
import { askStructured, extractJson } from '../runtime/structured.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import { READ_ONLY_TOOLS } from '../runtime/tools.js';
import { runChecks } from './checks.js';
import type { VerifierOpinion } from './gate.js';

/** The families that produced work on the current node, as answered: none of them may judge. */
function contributors(ctx: EngineContext): string[] {
  return [...ctx.accounting.current().contributorFamilies];
}

let copies = 0;

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
  const copy = path.join(ctx.workRoot, task.id, `verify-${++copies}`);
  const sandbox = await ctx.sandboxes.create({ workspaceDir: copy, copyFrom: workspaceDir, runId: ctx.runId, purpose: `${task.id}:verify` });
  try {
    const results = await runChecks(sandbox, checks);
    ctx.events.emit({ type: 'checks_run', ...stamp(ctx.clock, task.id), by, results });
    const listing = await sandbox.listFiles();
    const exclude = contributors(ctx);
    const sessionId = session('verifier');
    const messages: ChatMessage[] = [
      { role: 'system', content: promptFor('verifier') },
      {
        role: 'user',
        content: `## Task: is the work done?\n\n${brief(ctx, task)}\n\n## Checks, as just re-run for you\n${results
          .map((r, i) => `- ${r.passed ? 'PASS' : 'FAIL'} ${r.id}: \`${checks[i]?.command}\`${r.passed ? '' : `\n  output: ${r.output.slice(-600)}`}`)
          .join('\n')}\n\n## Files\n${listing.join('\n') || '(none)'}\n\nInspect what you need, then return {"verdict": ..., "findings": [...]}.`,
      },
    ];
    let loop;
    try {
      loop = await runToolLoop({
        router: ctx.router, role: 'verifier', sessionId, nodeId: task.id, messages, tools: READ_ONLY_TOOLS,
        ctx: { sandbox, runChecks: () => runChecks(sandbox, checks) }, events: ctx.events, clock: ctx.clock, maxTurns: 8, excludeFamilies: exclude,
      });
    } catch (error) {
      // No family that contributed nothing is available: no sign-off, so the gate forces NOT_DONE.
      if (error instanceof NoEligibleModelError) return { results, opinion: null };
      throw error;
    }
    let opinion: VerifierOpinion | null = null;
    const parsed = OpinionReply.safeParse(safeExtract(loop.finalContent));
    if (parsed.success) {
      const last = ctx.router.lastAnswer(sessionId);
      if (last) opinion = { ...parsed.data, ...last };
    } else {
      try {
        const again = await askStructured(ctx.router, 'verifier', OpinionReply, {
          sessionId,
          messages: [...loop.messages, { role: 'user', content: 'Give your final answer now as the JSON object {"verdict": ..., "findings": [...]}.' }],
          excludeFamilies: exclude,
        });
        opinion = { ...again.value, model: again.response.model, family: again.response.family };
      } catch (error) {
        if (!(error instanceof StructuredOutputError)) throw error;
      }
    }
    if (opinion) {
      ctx.events.emit({ type: 'verifier_opinion', ...stamp(ctx.clock, task.id), ...opinion });
    }
    return { results, opinion };
  } finally {
    await sandbox.dispose();
    await rm(copy, { recursive: true, force: true });
  }
}

function safeExtract(text: string | null): unknown {
  try {
    return extractJson(text);
  } catch {
    return null;
  }
}
