import { WORKER_CAP } from '../runtime/accounting.js';
import { establishChecks } from '../court/check-stage.js';
import { runChecks } from '../court/checks.js';
import type { CheckResult } from '../base/check.js';
import { brief } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { prepareWorkspace } from '../runtime/workspace.js';
import { driftJudgeFor } from '../court/drift-judge.js';
import type { StageOutcome } from './stage-outcome.js';
import type { Override } from '../court/gate.js';
import { judge, roundReporter } from '../court/judgement.js';
import type { ChatMessage } from '../ports/model-client.js';
import { Monitor } from '../court/monitor.js';
import { openQuestions } from './plan-rules.js';
import { promptFor } from '../runtime/prompts.js';
import { repairLoop } from '../court/repair-loop.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import { WORK_TOOLS } from '../runtime/tools.js';
import { metaVerify } from '../court/meta-verify.js';

/**
 * One leaf's life: checks before work, falsified on an empty workspace; the work loop under
 * the monitor and the 60% cap; meta-verification (one check rewrite, ever); the independent
 * re-run; the gate. A red verdict is retried with the failing checks prepended.
 */
export async function runLeaf(ctx: EngineContext, task: Task, planAssumptions: string[], session: (r: string) => string): Promise<StageOutcome> {
  const workspace = await prepareWorkspace(ctx, task);
  const sandbox = await ctx.sandboxes.create({ workspaceDir: workspace, runId: ctx.runId, purpose: task.id });
  try {
    const established = await establishChecks(ctx, task, { reason: 'initial', session });
    let checks = established.checks;
    const assumptions = [...planAssumptions, ...established.assumptions];
    const questions = openQuestions(assumptions);
    let rewriteUsed = false;
    const monitorFlags: string[] = [];
    const overrides: Override[] = [];
    let lastPassing = 0;

    const loop = await repairLoop({
      maxAttempts: ctx.maxAttempts,
      budgetLeft: () => ctx.accounting.current().remaining > 0,
      attempt: async (index, findings) => {
        const monitor = new Monitor(checks.map((c) => c.command).join('\n'));
        const messages: ChatMessage[] = [
          { role: 'system', content: promptFor('worker') },
          {
            role: 'user',
            content: `${brief(ctx, task)}\n\n## Checks (the definition of done)\n${checks.map((c) => `- ${c.id}: ${c.description}\n  \`${c.command}\``).join('\n')}${
              findings.length ? `\n\n## Attempt ${index}: the last attempt was not done. Fix these first\n${findings.map((f) => `- ${f}`).join('\n')}` : ''
            }`,
          },
        ];
        const work = await ctx.accounting.withPhaseCap('work', WORKER_CAP, () =>
          runToolLoop({
            router: ctx.router, role: 'worker', sessionId: session('worker'), nodeId: task.id, messages, tools: WORK_TOOLS,
            ctx: {
              sandbox,
              runChecks: async () => {
                const results = await runChecks(sandbox, checks);
                lastPassing = results.filter((x) => x.passed).length;
                return results;
              },
            },
            events: ctx.events, clock: ctx.clock, maxTurns: ctx.maxTurns, monitor, driftJudge: driftJudgeFor(ctx, task, session),
          }),
        );
        monitorFlags.push(...work.flags);

        // Meta-verification: would passing these checks prove the goal? The set may be rewritten
        // once, ever; the rewrite is judged again and then re-verified on the same artifacts.
        const inadequate = (reason: string) => ({
          value: { outcome: { verdict: 'CHECKS_INADEQUATE' as const, reasons: [`the checks are judged too weak to prove the goal: ${reason}`], overrides: [] }, results: [] as CheckResult[], opinion: null },
          score: lastPassing, accepted: false, settled: true, independent: true, findings: [],
        });
        let meta = await metaVerify(ctx, task, checks, await sandbox.listFiles(), session);
        if (!meta.adequate) {
          if (rewriteUsed) return inadequate(meta.reason);
          rewriteUsed = true;
          const rewritten = await establishChecks(ctx, task, { reason: 'inadequate', previous: checks, guidance: [meta.reason, ...meta.missing], session });
          checks = rewritten.checks;
          meta = await metaVerify(ctx, task, checks, await sandbox.listFiles(), session);
          if (!meta.adequate) return inadequate(meta.reason);
        }

        return judge(ctx, task, { checks, workspace, questions, session, by: 'verifier', overrides });
      },
      onRound: roundReporter(ctx, task),
    });

    const { outcome, results, opinion } = loop.final.value;
    return {
      gate: outcome,
      assumptions,
      openQuestions: questions,
      checks,
      checkResults: results,
      opinion,
      attempts: loop.attempts,
      checkRewrites: rewriteUsed ? 1 : 0,
      monitorFlags,
      overrides,
      interfaceChanges: [],
    };
  } finally {
    await sandbox.dispose();
  }
}
