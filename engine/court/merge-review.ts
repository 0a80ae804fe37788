import type { Arm } from '../base/arm.js';
import type { Check, CheckResult } from '../base/check.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { briefSections } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { isUnplaced } from '../runtime/model-family.js';
import { openingMessages } from '../runtime/request-layout.js';
import { ReviewReply } from '../runtime/replies.js';
import { REVIEW_TOOLS } from '../runtime/tools.js';
import { inScaffolding } from '../runtime/workspace.js';
import { runChecks } from './checks.js';
import { inDetachedCopy } from './detached-copy.js';
import { askJudge } from './judge-answer.js';

/** One review of one merge attempt, and who actually gave it. */
export interface MergeReview {
  kind: 'independent' | 'self';
  /** The model that answered and its family; null when nobody eligible could review, or the answer stayed unreadable. */
  model: string | null;
  family: string | null;
  /** True only for a gated review by a placed family that contributed nothing to the subtree. */
  independent: boolean;
  accept: boolean | null;
  findings: string[];
}

export interface MergeReviewOutcome {
  /** The seam checks as the engine re-ran them on the detached copy. */
  results: CheckResult[];
  review: MergeReview;
}

export interface MergeReviewOptions {
  arm: Arm;
  attempt: number;
  checks: Check[];
  /** The assembled tree: only ever read through a detached copy. */
  workspace: string;
  session: (role: string) => string;
  /** What the children built and claimed, as the merger was told. */
  children: string;
  /** Families that produced work anywhere in the subtree (as answered): none may judge a gated merge. */
  contributors: string[];
  /** The family that answered the merge being reviewed: the only one that may self-review. */
  mergerFamily: string | null;
}

/**
 * The review after one merge attempt, in a detached copy of the assembled tree, so neither
 * reviewer can change what will be graded. The engine re-runs the seam checks there first
 * (a reported pass is not evidence). Gated: a reviewer of a family that contributed nothing,
 * judged on the model that answered. Ungated: the merging agent's own family reviews itself;
 * it is recorded as a self-review and never as independent, whoever answered.
 */
export async function reviewMerge(ctx: EngineContext, task: Task, o: MergeReviewOptions): Promise<MergeReviewOutcome> {
  const role = o.arm === 'gated' ? 'reviewer' : 'self_reviewer';
  const kind = o.arm === 'gated' ? 'independent' : 'self';
  return inDetachedCopy(ctx, task, o.workspace, o.arm === 'gated' ? 'review' : 'self-review', async (sandbox) => {
    const results = await runChecks(sandbox, o.checks);
    ctx.events.emit({ type: 'checks_run', ...stamp(ctx.clock, task.id), by: role, results });
    const listing = await sandbox.listFiles();
    const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
      role, brief: briefSections(ctx, task), head: `## Task: review merge attempt ${o.attempt}\n\n`,
      tail: `\n\n${o.children}\n\n## Seam checks, as just re-run for you\n${results
        .map((r, i) => `- ${r.passed ? 'PASS' : 'FAIL'} ${r.id}: \`${o.checks[i]?.command}\`${r.passed ? '' : `\n  output: ${r.output.slice(-600)}`}`)
        .join('\n') || '(none)'}\n\n## Files\n${listing.filter((f) => !inScaffolding(f)).join('\n') || '(none)'}\n\nInspect what you need, then return {"accept": ..., "findings": [...]}.`,
    });
    // A self-review stays with the family that merged; a gated review may never go to a contributor.
    const families = o.arm === 'gated' ? { excludeFamilies: o.contributors } : { onlyFamilies: o.mergerFamily ? [o.mergerFamily] : [] };
    const answer = await askJudge(ctx, task, {
      role, sessionId: o.session(role), messages, tools: REVIEW_TOOLS, sandbox, checks: o.checks, schema: ReviewReply, ...families,
      askAgain: 'Give your final answer now as the JSON object {"accept": ..., "findings": [...]}.',
    });
    const independent = o.arm === 'gated' && answer !== null && !o.contributors.includes(answer.family) && !isUnplaced(answer.family);
    const review: MergeReview = {
      kind, model: answer?.model ?? null, family: answer?.family ?? null, independent, accept: answer?.value.accept ?? null, findings: answer?.value.findings ?? [],
    };
    ctx.events.emit({ type: 'merge_review', ...stamp(ctx.clock, task.id), attempt: o.attempt, ...review, verdictUsed: o.arm === 'gated' });
    return { results, review };
  });
}
