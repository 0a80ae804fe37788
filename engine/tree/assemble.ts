import type { Arm } from '../base/arm.js';
import type { GateOutcome } from '../court/gate.js';
import type { NodeAccount } from '../runtime/accounting.js';
import { sessionIds } from '../runtime/session.js';
import type { BuiltNode } from './build.js';
import { runMerge } from './merge-loop.js';
import { finishNode } from './node-finish.js';
import type { MergeRecord, NodeResult, NodeStop } from './node-result.js';
import { stopOf } from './stops.js';
import { inSlot, type TreeContext } from './tree-context.js';

/** A child that ended as it should in this arm: DONE, or (ungated) merged and self-reviewed. */
function finished(child: NodeResult): boolean {
  return child.verdict === 'DONE' || child.verdict === 'SELF_REVIEWED';
}

/**
 * The merge phase of one arm over a built tree, deepest first: a finished node (a leaf) is
 * returned as the build left it, byte for byte and paid once; a split node assembles its
 * children's results in this arm's merge loop. Each split node is charged to a branch of its
 * build ledger (`parent` is this arm's branch of the parent), so both arms start from the same
 * spend and neither pays for the other's merges. Session ids carry the arm.
 */
export async function assembleNode(ctx: TreeContext, node: BuiltNode, arm: Arm, parent: NodeAccount | null): Promise<NodeResult> {
  if (node.kind === 'finished') return node.result;
  const account = node.account.branch(parent);
  const { task } = node;
  return ctx.accounting.run(
    account,
    async () => {
      const session = sessionIds(`${arm}/${task.id}`);
      const record = node.record.copy();
      const merge: MergeRecord = { arm, attempts: [], stop: null };
      const children: NodeResult[] = [];
      let outcome: GateOutcome;
      let stop: NodeStop | null = null;
      let merged = false;
      try {
        // The children assemble at once, each merge loop on a session slot; this node holds none while it waits.
        const settled = await Promise.allSettled(
          node.children.map(async (child, i) => {
            children[i] = await assembleNode(ctx, child, arm, account);
          }),
        );
        const thrown = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
        if (thrown) throw thrown.reason;
        record.raise(children.flatMap((c) => c.openQuestions));
        if (node.failedPrerequisite) {
          const reason = `nothing to assemble: prerequisite ${node.failedPrerequisite.slug} ended ${node.failedPrerequisite.verdict}, so its siblings were stopped`;
          outcome = record.questions.length ? { verdict: 'NEEDS_HUMAN', reasons: [reason], overrides: [] } : { verdict: 'STOPPED', reasons: [reason], overrides: [] };
        } else {
          merged = true;
          outcome = await inSlot(ctx, () => runMerge(ctx, task, { arm, plan: node.plan, account, session, record, children, merge }));
        }
      } catch (error) {
        const stopped = stopOf(error);
        if (!stopped) throw error;
        const { reason, ...cause } = stopped;
        stop = cause;
        outcome = { verdict: 'STOPPED', reasons: [reason], overrides: [] };
      }
      const unfinished = children.filter((c) => !finished(c));
      // A stop says what stopped the node; otherwise unfinished children make it INCOMPLETE.
      if (!stop && outcome.verdict !== 'NEEDS_HUMAN' && unfinished.length) {
        outcome = {
          verdict: 'INCOMPLETE',
          reasons: [`${unfinished.length} of ${children.length} children are not done: ${unfinished.map((c) => `${c.slug} ${c.verdict}`).join(', ')}`, ...outcome.reasons],
          overrides: [],
        };
      }
      return finishNode(ctx, task, account, record, { mode: 'split', forcedExecute: null, outcome, stop, children, merge: merged ? merge : null });
    },
    arm,
  );
}
