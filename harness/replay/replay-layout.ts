import { requestLayoutOf, type RequestLayout, type TranscriptVersion } from '../../engine/index.js';
import { UsageError } from '../exit-codes.js';
import type { RecordedCall } from '../journal/transcripts.js';

/**
 * The request layout a pair's transcripts (every arm's record) were recorded in, read from their format version: the
 * engine must lay its requests out the same way to ask what the record holds. A pair whose
 * transcripts mix versions was not recorded by one harness, and is refused rather than replayed
 * half in one layout. No recorded call at all: null (the caller's default stands; nothing is compared).
 */
export function recordedLayout(records: Iterable<ReadonlyMap<string, readonly RecordedCall[]>>, shownAs: string): RequestLayout | null {
  const versions = new Set<TranscriptVersion>();
  for (const recorded of records) for (const calls of recorded.values()) for (const c of calls) versions.add(c.request.version);
  if (versions.size > 1) {
    throw new UsageError(`${shownAs}: one pair's transcripts mix format versions ${[...versions].sort().join(' and ')}; it was not recorded by one harness and cannot be replayed`);
  }
  const [version] = versions;
  return version === undefined ? null : requestLayoutOf(version);
}
