import { createHash } from 'node:crypto';

/**
 * A session id as a URL path under a cell: one path segment per `/`-separated part of the id,
 * so the engine's `root.1.2/worker/1` reads as `sessions/root.1.2/worker/1/`. In each part,
 * letters, digits, `_`, `-` and `.` are kept (a leading `.` is escaped, so no part is `.` or
 * `..`), every other byte is written `~XX`, and an empty part is `~`. Injective, so two sessions
 * never share a page. A part too long for a file system keeps a readable head and a hash.
 */
function part(text: string): string {
  if (text === '') return '~';
  const escaped = Array.from(Buffer.from(text, 'utf8'), (byte, i) => {
    const c = String.fromCharCode(byte);
    return /[A-Za-z0-9_-]/.test(c) || (c === '.' && i > 0) ? c : `~${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
  return escaped.length <= 120 ? escaped : `${escaped.slice(0, 100)}~~${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
}

export function sessionSlug(sessionId: string): string {
  if (sessionId === '') throw new Error('a session id cannot be empty');
  return sessionId.split('/').map(part).join('/');
}

/** The path segment of a session's page N > 1; `~` followed by a letter is never part of a slug. */
export const pageSegment = (page: number): string => `~page-${page}`;
