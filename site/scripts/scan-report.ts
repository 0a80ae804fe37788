import type { SecretKind } from '../../harness/run-files.js';
import type { SecretScanner } from './secret-scan.js';

/**
 * How make_site tells where a secret is: file, line (or its path) and class, never the value.
 * Every printed line goes through the scanner's redaction, so a file named after a key is not
 * echoed either.
 */

export interface ScanHit {
  /** The file as the user knows it (a run folder's path, or a built page's). */
  shownAs: string;
  /** The line, or null when it is the file's path that holds the secret. */
  line: number | null;
  kind: SecretKind;
  variable: string | null;
  /** Seen only once the file's escapes were decoded. */
  decoded: boolean;
}

/** One line per hit on `err`. */
export function printHits(hits: readonly ScanHit[], err: (line: string) => void, scanner: SecretScanner): void {
  for (const h of hits) {
    const where = h.line === null ? ' (its path):' : ` line ${h.line}:`;
    err(scanner.redactPaths(`make_site: ${h.shownAs}${where} ${h.kind}${h.variable ? ` (the value of ${h.variable})` : ''}${h.decoded ? ' (once its escapes are decoded)' : ''}`));
  }
}

/** The one-line refusal: how many secrets in how many files (`where`: of what), then what happened and what to do. */
export function refusalMessage(hits: readonly ScanHit[], where: string, then: string): string {
  const fileCount = new Set(hits.map((h) => h.shownAs)).size;
  return `make_site: refused: ${hits.length} ${hits.length === 1 ? 'secret' : 'secrets'} in ${fileCount} ${fileCount === 1 ? 'file' : 'files'}${where} (values not shown); ${then}`;
}
