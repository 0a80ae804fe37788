import { PAGE_CHARS } from './conversation.js';

/**
 * Which sessions have their transcript shown on the site. A page per session repeated every
 * transcript in markup (100 smoke runs: 18,001 pages, 822 MB), so only the judgements a reviewer
 * audits are shown: the verifier's verdict on a leaf, and each merge's reviewer or self-reviewer.
 * Every other session (planner, worker, checker, merger, drift judge) is a row, with its
 * figures, on its cell's first sessions page, and its transcript is in the run's raw transcripts
 * download. The sessions of the leaves whose claims were killed are shown as well (getsPage):
 * few, and the ones a reviewer opens from a killed claim. "Pages" below are a transcript's pages
 * (conversation.ts paginate), which SessionPacker places on the cell's sessions pages.
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

/** The element id of a session's entry on its cell's sessions pages: its row when it has no page, else the start of its transcript. */
export const sessionAnchor = (slug: string): string => `session-${slug}`;

/**
 * Where a session's pages are read: folded, one after another, on its cell's sessions pages.
 * A page of its own per session repeated the layout (banner, crumbs, facts: about 2 KB) and
 * Astro's per-page work (about 3 ms) a hundred times a run; a cell's sessions page holds its
 * sessions' pages in order until they pass PACK_CHARS, and the next go on its next page
 * (`sessions/~page-2/`), so no page grows without bound. Anchors inside a transcript carry the
 * session's number in the cell (`s3-m12`), since several transcripts share one page.
 */
export const PACK_CHARS = 4 * PAGE_CHARS;

/** Places a cell's sessions on its sessions pages, in the order they are given. */
export class SessionPacker {
  private pack = 1;
  private chars = 0;
  private placed = 0;

  /**
   * The sessions page of each of a session's pages (`chars`: the characters each shows), and the
   * session's number among the cell's placed sessions. No pages: no place (`packs` empty, number 0).
   */
  place(chars: readonly number[]): { packs: number[]; ordinal: number } {
    if (chars.length === 0) return { packs: [], ordinal: 0 };
    const packs = chars.map((n) => {
      if (this.chars > 0 && this.chars + n > PACK_CHARS) {
        this.pack += 1;
        this.chars = 0;
      }
      this.chars += n;
      return this.pack;
    });
    this.placed += 1;
    return { packs, ordinal: this.placed };
  }
}

/** An anchor inside a session's transcript (a message's `m12`, `calls`), made unique on its page by the session's number. */
export const blockAnchor = (ordinal: number, anchor: string): string => `s${ordinal}-${anchor}`;

/** The element id where one page of a session starts: the session's own anchor for its first, a numbered one after. */
export const partAnchor = (slug: string, ordinal: number, page: number): string => (page === 1 ? sessionAnchor(slug) : blockAnchor(ordinal, `page-${page}`));
