import type { ModelSpec } from './model-spec.js';

/**
 * Families are how independence is judged, so a model the router cannot place is never
 * independent of anyone: its family is `unplaced:<id>`, which as a contributor excludes every
 * family and as a judge never signs off.
 */
export const UNPLACED = 'unplaced:';

export function isUnplaced(family: string): boolean {
  return family.startsWith(UNPLACED);
}

/** A trailing snapshot date: `-2024-08-06`, `-20241022`, `-0613`. */
const DATE_STAMP = /-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/;

/**
 * The family of the model an endpoint says answered. Placed only by what the roster states:
 * the id (or roster name) itself, or a dated snapshot of a roster id (`gpt-x-2024-08-06` of
 * `gpt-x`). Anything else, a gateway suffix, another vendor's prefix, or an id that several
 * families share, is unplaced: guessing a family would let a model judge its own work.
 */
export function placeModel(answered: string, roster: readonly ModelSpec[]): { family: string; placed: boolean } {
  const byId = (id: string) => roster.filter((m) => m.model === id || m.name === id);
  let matches = byId(answered);
  if (!matches.length && DATE_STAMP.test(answered)) matches = roster.filter((m) => m.model === answered.replace(DATE_STAMP, ''));
  const families = new Set(matches.map((m) => m.family));
  if (families.size === 1) {
    const family = [...families][0]!;
    return { family, placed: !isUnplaced(family) };
  }
  return { family: `${UNPLACED}${answered}`, placed: false };
}
