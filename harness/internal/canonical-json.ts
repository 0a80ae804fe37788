import { createHash } from 'node:crypto';
import { stableJson } from '../../engine/index.js';

/** Canonical JSON: keys sorted at every level and undefined dropped, so formatting never changes a digest. */
export const canonicalJson = stableJson;

/** sha256 of the canonical JSON, as hex. */
export function digestOf(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}
