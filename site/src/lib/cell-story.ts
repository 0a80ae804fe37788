import type { EngineEvent, GradeResult, NodeResult, Report } from '../../../harness/run-file-schemas.js';
import type { CellKey } from '../../../harness/run-files.js';
import { cellTree, claimMarks, type SessionLink } from './node-tree.js';
import type { CellView, SessionCounts, SessionView } from './site-views.js';

export type { SessionCounts } from './site-views.js';

/**
 * What a cell's page says once every cell of its run is read: its node tree with the sessions
 * of its pair's shared build linked where their transcripts are (under shared pairing, the first
 * arm's folder), its claims from the report, and the session counts the report's spend counts.
 * Pure: the files were read and validated by site-data.ts.
 */

/** One cell as site-data.ts read it, before its tree is drawn. */
export interface CellRead {
  key: CellKey;
  id: string;
  run: string;
  result: NodeResult | null;
  grade: GradeResult | null;
  row: Report['cells'][number] | null;
  /** The sessions whose transcripts are in this cell's folder. */
  sessions: SessionView[];
  /** The pair's shared build's events, then the cell's own. */
  events: EngineEvent[];
  /** The sessions the pair's events file charges: the shared build's, served to both cells. */
  sharedCharged: ReadonlySet<string>;
  torn: string[];
}

const pairKey = (k: CellKey) => `${k.cap}/${k.repetition}`;

/** Every cell's view: its tree, claims and counts, drawn with the sessions of its whole pair. */
export function cellStories(cells: readonly CellRead[], report: Report): CellView[] {
  const byPair = new Map<string, CellRead[]>();
  for (const c of cells) byPair.set(pairKey(c.key), [...(byPair.get(pairKey(c.key)) ?? []), c]);
  return cells.map((cell) => {
    const pair = byPair.get(pairKey(cell.key))!;
    const isShared = (s: SessionLink) => cell.sharedCharged.has(s.sessionId);
    // This cell's transcripts, and the shared ones a partner's folder holds.
    const placed = pair.flatMap((c) => c.sessions.filter((s) => c === cell || isShared(s)).map((s) => ({ ...link(s), nodeId: s.nodeId, cell: c.id, shared: isShared(s) })));
    const sharedUnder = [...new Set(placed.filter((s) => s.shared).map((s) => s.cell))].sort();
    const claims = report.claims.filter((c) => c.cellId === cell.id);
    const view: CellView = {
      ...cell.key, run: cell.run, id: cell.id,
      tree: cell.result ? cellTree(cell.result, cell.events, placed, claims) : null,
      grade: cell.grade,
      row: cell.row,
      claims: claimMarks(claims, cell.result),
      sessionCounts: { reported: cell.row?.spend.sessions ?? null, shared: placed.filter((s) => s.shared).length, sharedUnder, own: placed.filter((s) => !s.shared).length },
      sessions: cell.sessions,
      torn: cell.torn,
    };
    return view;
  });
}

/** Only what a link shows: a session view also carries its totals and file. */
function link(s: SessionView): SessionLink {
  return { slug: s.slug, sessionId: s.sessionId, role: s.role, attempt: s.attempt, calls: s.calls, models: s.models, costUsd: s.costUsd, pack: s.pack };
}
