import type { GradeResult, Report } from '../../../harness/run-file-schemas.js';
import type { CellKey } from '../../../harness/run-files.js';
import type { SessionTotals } from './conversation.js';
import type { ReviewFields } from './merge-story.js';
import type { CellTree, ClaimMark, SessionLink } from './node-tree.js';

/**
 * The views of a cell and of its sessions as the pages read them: data only, in a module of
 * their own so that site-data.ts (which reads the files) and cell-story.ts (which draws a
 * cell's story from them) both name them without importing each other.
 */

export interface SessionView extends SessionLink {
  run: string;
  cell: string;
  nodeId: string;
  /** The transcript, relative to the data folder. */
  file: string;
  /** The cell's sessions page each page of its transcript is on (SessionPacker): none for a session without one (session-pages.ts). */
  packs: number[];
  /** Its number among the cell's sessions with pages, which its anchors carry (blockAnchor); 0 without. */
  ordinal: number;
  totals: SessionTotals;
  torn: boolean;
  /** A merge review's or self-review's verdict and findings, from the cell's events (merge-story.ts); null for other sessions. */
  review: ReviewFields | null;
}

export interface CellView extends CellKey {
  run: string;
  id: string;
  tree: CellTree | null;
  grade: GradeResult | null;
  row: Report['cells'][number] | null;
  /** The report's claims of this cell, each marked survived or killed and linked to its leaf and merge. */
  claims: ClaimMark[];
  /** The sessions the report counts for this cell, split into the pair's shared build and its own. */
  sessionCounts: SessionCounts;
  /** The sessions whose transcripts are in this cell's folder. */
  sessions: SessionView[];
  /** Files of the cell that were cut short by a stop (a torn last line, dropped). */
  torn: string[];
}

export interface SessionCounts {
  /** What the report's spend counts for the cell; null when the report has no row for it. */
  reported: number | null;
  /** Sessions of the pair's shared build, with a transcript in a cell of the pair. */
  shared: number;
  /** The cells whose folders hold those transcripts (the first arm's under shared pairing). */
  sharedUnder: string[];
  /** Sessions of this cell's own arm: transcripts in its folder that are not the shared build's. */
  own: number;
}

