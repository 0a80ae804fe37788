import type { Arm, ModelRequest } from '../../../engine/index.js';
import { reviewDraws } from '../decisions.js';
import { findMarkers } from '../defect-table.js';
import { answer, calls, resultsOfTurn, turnOf, whole, type SimReply } from './conversation.js';
import { programFiles } from './sim-checks.js';
import { SimPopulationError, type SimWorld } from './sim-world.js';

/**
 * The SIMULATED reviewer of a merge, in either arm (the independent judge, or the merging
 * agent's self-review): it reads every program file of the assembled tree with real
 * `read_file` calls, sees each planted marker, and reports each defect present with its arm's
 * recall (`reviewDraws`). Nothing found is an approval.
 */
export function reviewerReply(world: SimWorld, req: ModelRequest): SimReply {
  const arm: Arm | undefined = req.arm;
  if (!arm) throw new SimPopulationError(`${req.sessionId}: a review must say which arm it serves`);
  const files = programFiles(world.corpus);
  if (turnOf(req) === 0) return calls(req, files.map((path) => ({ name: 'read_file', args: { path } })));
  const read = resultsOfTurn(req, 0);
  const tree = Object.fromEntries(read.map((r) => [String(r.args.path), whole(r.content, `${String(r.args.path)} as read`)]));
  const markers = findMarkers(tree);
  const present = [...new Set(markers.map((m) => m.requirement))];
  const node = world.node(world.buildArmOf(arm), req.nodeId);
  const found = reviewDraws(world.params, world.draws(world.buildArmOf(arm)), arm, { path: node.path, attempt: req.attempt, present });
  const where = (r: string) => markers.find((m) => m.requirement === r)!;
  return answer({ accept: found.length === 0, findings: found.map((r) => `SIMULATED DEFECT ${r} at ${where(r).file}:${where(r).line}`) });
}
