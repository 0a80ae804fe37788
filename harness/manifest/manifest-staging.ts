import { UsageError } from '../exit-codes.js';
import type { LoadedManifest } from './manifest-loader.js';

/**
 * Lowers the session ceiling by folding it into the loaded manifest object, so every later
 * reader (plan, journal, report) sees the number the run enforces. The file and the digest
 * are untouched: a resume may lower its ceiling without becoming a different sweep. Raising
 * is refused, because that is a different sweep and belongs in the file.
 */
export function withMaxSessions(loaded: LoadedManifest, maxSessions: number): LoadedManifest {
  const fromFile = loaded.folded.max_sessions?.manifest ?? loaded.manifest.max_sessions;
  if (maxSessions > fromFile) {
    throw new UsageError(
      `--max-sessions ${maxSessions} is above max_sessions ${fromFile} in ${loaded.shownAs}; the flag can only lower the ceiling; to raise it, edit max_sessions in the manifest (which makes it a different sweep, with a new digest)`,
    );
  }
  return {
    ...loaded,
    manifest: { ...loaded.manifest, max_sessions: maxSessions },
    folded: { ...loaded.folded, max_sessions: { manifest: fromFile, flag: maxSessions } },
  };
}

/** The caps `--depths` asked for, ascending; every one must be a cap the manifest declares. */
export function selectDepths(loaded: LoadedManifest, depths: readonly number[]): number[] {
  const available = loaded.manifest.depth_caps;
  const unknown = depths.filter((cap) => !available.includes(cap));
  if (unknown.length > 0) {
    const which = unknown.length === 1 ? `cap ${unknown[0]} is` : `caps ${unknown.join(', ')} are`;
    throw new UsageError(`--depths: ${which} not in ${loaded.shownAs}; its caps are ${available.join(', ')}`);
  }
  return available.filter((cap) => depths.includes(cap));
}
