import type { ModelRequest } from '../../../engine/index.js';
import { answer, lastUser, taskLine, type SimReply } from './conversation.js';

/**
 * The SIMULATED verifier: a leaf's checks and a merge's seam checks are adequate (they were
 * written to be), and a leaf's work is done exactly when every check passed as the engine re-ran
 * it. It finds no planted defect: only merge reviewers do.
 */
export function verifierReply(req: ModelRequest): SimReply {
  if (taskLine(req).startsWith('are the checks adequate')) return answer({ adequate: true, reason: 'SIMULATED: the checks run the package and its own tests', missing: [] });
  const failing = [...lastUser(req).matchAll(/^- FAIL ([^:\n]+):/gm)].map((m) => m[1]!);
  return failing.length ? answer({ verdict: 'NOT_DONE', findings: failing.map((id) => `check ${id} fails`) }) : answer({ verdict: 'DONE', findings: [] });
}
