import type { CheckResult } from '../base/check.js';
import { establishChecks } from '../court/check-stage.js';
import { runChecks } from '../court/checks.js';
import { DRIFT_ALLOWANCE, driftJudgeFor } from '../court/drift-judge.js';
import type { GateOutcome } from '../court/gate.js';
import { findingsNote, judge, repairRounds, settledRound } from '../court/judgement.js';
import { settleChecks } from '../court/meta-verify.js';
import { Monitor } from '../court/monitor.js';
import type { NodeRecord } from '../court/node-record.js';
import type { ChatMessage } from '../ports/model-client.js';
import { WORKER_CAP } from '../runtime/accounting.js';
import { briefSections } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { openingMessages } from '../runtime/request-layout.js';
import { runToolLoop } from '../runtime/tool-loop.js';
import { WORK_TOOLS } from '../runtime/tools.js';
import { prepareWorkspace } from '../runtime/workspace.js';

/**
 * One leaf's life: checks before work, falsified on an empty workspace (3 to 5 usable, or
 * CHECKS_INADEQUATE without work); the work loop under the monitor and the 60% cap;
 * meta-verification (one check rewrite, ever); the independent re-run; the gate. A red
 * verdict is retried with the failing checks prepended. Everything learnt goes into `record`
 * as it is learnt, so a stop halfway still reports it.
 */
export async function runLeaf(ctx: EngineContext, task: Task, record: NodeRecord, session: (r: string) => string): Promise<GateOutcome> {
  const workspace = await prepareWorkspace(ctx, task);
  const sandbox = await ctx.sandboxes.create({ workspaceDir: workspace, runId: ctx.runId, purpose: task.id });
  try {
    const established = await establishChecks(ctx, task, { reason: 'initial', session, record });
    record.checks = established.checks;
    if (established.short) return { verdict: 'CHECKS_INADEQUATE', reasons: [established.short], overrides: [] };
    let lastPassing = 0;
    const runOwnChecks = async (): Promise<CheckResult[]> => {
      const results = await runChecks(sandbox, record.checks);
      lastPassing = results.filter((x) => x.passed).length;
      if (!record.opinion) record.checkResults = results;
      return results;
    };

    return await repairRounds(ctx, task, record, async (index, findings) => {
      const monitor = new Monitor(record.checks.map((c) => c.command).join('\n'));
      const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
        role: 'worker', brief: briefSections(ctx, task),
        tail: `\n\n## Checks (the definition of done)\n${record.checks.map((c) => `- ${c.id}: ${c.description}\n  \`${c.command}\``).join('\n')}${findingsNote(index, findings, 'attempt')}`,
      });
      const work = await ctx.accounting.withPhaseCap('work', WORKER_CAP, () =>
        runToolLoop({
          router: ctx.router, role: 'worker', sessionId: session('worker'), nodeId: task.id, messages, tools: WORK_TOOLS,
          ctx: { sandbox, runChecks: runOwnChecks }, events: ctx.events, clock: ctx.clock, maxTurns: ctx.maxTurns, monitor, driftJudge: driftJudgeFor(ctx, task, session), driftAllowance: DRIFT_ALLOWANCE,
        }),
      );
      record.monitorFlags.push(...work.flags);
      record.note([work.finish?.summary, ...(work.finish?.interfaceChanges ?? []), work.finalContent]);

      const settled = await settleChecks(ctx, task, { checks: record.checks, listing: () => sandbox.listFiles(), session, record });
      if (!settled.ok) return settledRound(settled.verdict, settled.reason, lastPassing);
      record.checks = settled.checks;
      return judge(ctx, task, { checks: record.checks, workspace, session, by: 'verifier', record });
    });
  } finally {
    await sandbox.dispose();
  }
}
