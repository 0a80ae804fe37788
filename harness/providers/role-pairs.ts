import { z } from 'zod';
// Type-only: this module stays free of the engine at run time, so the pure bill (and the results
// site's schemas, which reach it) never load the engine.
import type { Role } from '../../engine/index.js';

/**
 * Which of a manifest's two pairs answers each engine role: the one rule `harness plan` prices
 * by, kept apart from the plan so `harness record` can route by the same one and the bill and the
 * run cannot disagree about who answers. Pure: no configuration, no roster.
 *
 * The executor does the work and everything that stays inside the work's own family: planning,
 * building, writing checks, merging, the ungated arm's self-review of a merge, and the drift
 * judge a working loop consults. The reviewer judges: the independent re-run of a leaf's checks
 * and the meta-verifier that settles checks (both role `verifier`), and the gated arm's merge
 * judge (`reviewer`). A role added to the engine fails to compile here until it is placed.
 */

/** One of the manifest's two model pairs, named as the manifest names them. */
export const ModelPairName = z.enum(['executor', 'reviewer']);
export type ModelPairName = z.infer<typeof ModelPairName>;

/** Every engine role, with the pair that answers it; a `Record` so no role can be left out. */
const PAIR_OF_ROLE: Readonly<Record<Role, ModelPairName>> = {
  planner: 'executor',
  worker: 'executor',
  checker: 'executor',
  merger: 'executor',
  // The merging agent reviewing its own merge: whatever may merge may self-review (model-router `serves`).
  self_reviewer: 'executor',
  drift_judge: 'executor',
  verifier: 'reviewer',
  reviewer: 'reviewer',
};

const rolesOf = (pair: ModelPairName): readonly Role[] => Object.freeze((Object.keys(PAIR_OF_ROLE) as Role[]).filter((role) => PAIR_OF_ROLE[role] === pair));

/** The roles the executor pair's model answers: planner, worker, checker, merger, self_reviewer, drift_judge. */
export const EXECUTOR_ROLES: readonly Role[] = rolesOf('executor');

/** The roles the reviewer pair's model answers: verifier (a leaf's re-run and every meta-verifier) and reviewer (the gated merge judge). */
export const JUDGE_ROLES: readonly Role[] = rolesOf('reviewer');

/** The pair whose model the router sends `role` to. */
export function pairOfRole(role: Role): ModelPairName {
  return PAIR_OF_ROLE[role];
}
