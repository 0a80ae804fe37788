import { count, tokens } from '../internal/figures.js';
import { textTable } from '../internal/text-table.js';
import type { CacheShare } from '../journal/cache-share-schema.js';

/**
 * `plan --from`'s lines on the prompt cache: the share of input the provider served from its
 * cache in the recorded run, per role (the journal's finished sessions, cache-share.ts). The
 * learned forecast prices sessions at what they measured, so the cache's saving is already in
 * its dollars; these lines say how much of it there was, to judge whether a run on another
 * provider (or in another request layout) will see the same.
 */
export function cacheLines(run: string, shares: readonly CacheShare[]): string[] {
  if (shares.length === 0) return [];
  const share = (s: CacheShare) => (s.share === null ? '–' : `${Math.round(s.share * 100)}%`);
  const header = ['role', 'sessions', 'tokens in', 'cached', 'cached share'];
  const rows = shares.map((s) => [s.role, count(s.sessions), tokens(s.input), tokens(s.cached), share(s)]);
  return [`Prompt cache in ${run} (input served from the provider's cache, per role, over every call):`, ...textTable([header, ...rows], header.map((_, i) => (i === 0 ? 'left' : 'right')))];
}
