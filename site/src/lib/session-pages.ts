/**
 * Which sessions get pages of their own. A page per session repeated every transcript in
 * markup (100 smoke runs: 18,001 pages, 822 MB), so only the judgements a reviewer audits get
 * one: the verifier's verdict on a leaf, and each merge's reviewer or self-reviewer. Every
 * other session (planner, worker, checker, merger, drift judge) is listed, with its figures,
 * on its cell's sessions page, and its transcript is in the run's raw transcripts download.
 * Measured on 100 copies of the example: judgements only, 1.5 MB a run; with the workers' pages
 * too, 1.85 MB (the goal is 150 MB for the 100). Decided from the session id alone (its role is
 * the part before the attempt), so sessionUrl answers for any session without reading data.
 */
export const PAGE_ROLES: ReadonlySet<string> = new Set(['verifier', 'reviewer', 'self_reviewer']);

/** The role named in a session id or its slug (`root.1/verifier/1`, `gated/root/reviewer/2`). */
export function roleOf(sessionIdOrSlug: string): string | null {
  const parts = sessionIdOrSlug.split('/');
  return parts.length >= 2 ? parts[parts.length - 2]! : null;
}

export const hasPage = (sessionIdOrSlug: string): boolean => PAGE_ROLES.has(roleOf(sessionIdOrSlug) ?? '');

/** The element id of a session's entry on its cell's sessions page. */
export const sessionAnchor = (slug: string): string => `session-${slug}`;
