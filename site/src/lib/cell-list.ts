import { parseCellId } from '../../../harness/run-files.js';
import { MAX_ROWS } from './long-tables.js';

/**
 * The sweep page's list of cell pages: every cell while they are few (at most MAX_ROWS, the
 * committed example's 8), else one line per cap linking to that cap's part of the run's cells
 * page (runs/RUN/cells/), so the sweep page does not grow with the cells.
 */

export interface CellGroup {
  /** "cap 2", or "other cells" for an id that names no cap. */
  label: string;
  /** The id of the group's heading on the cells page. */
  anchor: string;
  cells: string[];
}

/** By repetition as a number (rep2 before rep10), then arm; an id that names no cell last, as given. */
function byRepetition(a: string, b: string): number {
  const [x, y] = [parseCellId(a), parseCellId(b)];
  if (!x || !y) return Number(!x) - Number(!y);
  return x.repetition - y.repetition || x.arm.localeCompare(y.arm);
}

/** Cell ids by cap, caps in order, each cap's cells by repetition then arm. */
export function cellGroups(cells: readonly string[]): CellGroup[] {
  const byCap = new Map<number, string[]>();
  for (const id of cells) {
    const cap = parseCellId(id)?.cap ?? -1;
    const group = byCap.get(cap);
    if (group) group.push(id);
    else byCap.set(cap, [id]);
  }
  return [...byCap.entries()]
    .sort(([a], [b]) => a - b)
    .map(([cap, ids]) => ({ label: cap < 0 ? 'other cells' : `cap ${cap}`, anchor: cap < 0 ? 'cells-other' : `cells-cap${cap}`, cells: ids.sort(byRepetition) }));
}

/** Whether the sweep page lists every cell itself. */
export const listsEveryCell = (cells: readonly string[], maxRows = MAX_ROWS): boolean => cells.length <= maxRows;
