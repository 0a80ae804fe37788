/**
 * Which sessions get pages of their own. A page per session repeated every transcript in
 * markup (100 smoke runs: 18,001 pages, 822 MB), so only the judgements a reviewer audits get
 * one: the verifier's verdict on a leaf, and each merge's reviewer or self-reviewer. Every
 * other session (planner, worker, checker, merger, drift judge) is listed, with its figures,
 * on its cell's sessions page, and its transcript is in the run's raw transcripts download.
 * Measured on 100 copies of the example: judgements only, 1.5 MB a run; with the workers' pages
 * too, 1.85 MB (the goal is 150 MB for the 100). The sessions of the leaves whose claims were
 * killed get pages as well (getsPage): few, and the ones a reviewer opens from a killed claim.
 */
export const PAGE_ROLES: ReadonlySet<string> = new Set(['verifier', 'reviewer', 'self_reviewer']);

/** The role named in a session id or its slug (`root.1/verifier/1`, `gated/root/reviewer/2`). */
export function roleOf(sessionIdOrSlug: string): string | null {
  const parts = sessionIdOrSlug.split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : null;
}

/** Whether a session's role gives it a page of its own (a judgement). */
export const hasPage = (sessionIdOrSlug: string): boolean => PAGE_ROLES.has(roleOf(sessionIdOrSlug) ?? '');

/**
 * The leaves a pair's killed claims were made at (report.json's `claims`, either arm): their
 * sessions get pages too, since "why did this claim die?" is read in the leaf's own work. By
 * pair, because under shared pairing a leaf's transcripts sit in the first arm's folder while
 * the claim may have died in the other arm.
 */
export function killedLeavesByPair(claims: ReadonlyArray<{ cellId: string; leaf: string; survived: boolean }>, pairOf: (cellId: string) => string): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const c of claims) {
    if (c.survived) continue;
    const pair = pairOf(c.cellId);
    const leaves = out.get(pair) ?? out.set(pair, new Set()).get(pair)!;
    leaves.add(c.leaf);
  }
  return out;
}

/** Whether a session gets a page of its own: a judgement, or any session of a leaf where a claim was killed. */
export const getsPage = (sessionId: string, nodeId: string, killedLeaves: ReadonlySet<string>): boolean => hasPage(sessionId) || killedLeaves.has(nodeId);

/** The element id of a session's entry on its cell's sessions page. */
export const sessionAnchor = (slug: string): string => `session-${slug}`;
