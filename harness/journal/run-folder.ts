import { createHash } from 'node:crypto';
import { mkdir, open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UsageError } from '../exit-codes.js';
import { ARMS, type Arm } from '../manifest/manifest.js';
import { fsyncPath } from './fsync-path.js';

/**
 * Where a recorded sweep keeps everything, one folder per sweep:
 *
 * ```
 * <run>/journal.jsonl            the only source of truth for resume (append-only, fsynced)
 * <run>/manifest.yaml            the manifest's exact bytes, the ones the journal header pins
 * <run>/pairs/<pair id>/events.jsonl        the engine's events of a pair's shared build (planning, leaves), once
 * <run>/cells/<cell id>/events.jsonl        the engine's events of the cell's own arm (its merges; its build too under independent pairing)
 * <run>/cells/<cell id>/transcripts/<session>.jsonl   one file per session, one writer each
 * <run>/cells/<cell id>/result.json         the cell's node tree
 * <run>/cells/<cell id>/grade.json          the oracle's grade of its root tree
 * <run>/cells/<cell id>/tree/               the graded root tree (failed cells, --keep-workspaces)
 * <run>/summary.json             per-cell status, score, spend and the caveats
 * <run>/report/                  the full report (a later issue)
 * ```
 *
 * Paths only; nothing here decides what goes in the files.
 */

const CELL_ID = /^cap([1-9][0-9]*)-rep([1-9][0-9]*)-(gated|ungated)$/;

/** A cell's stable name, `cap<cap>-rep<repetition>-<arm>`: journals, folders and reports key on it. */
export const CellId = z.string().regex(CELL_ID, 'is not a cell id (cap<N>-rep<N>-gated|ungated)');
export type CellId = z.infer<typeof CellId>;

/** One cell of the matrix: one tree recorded at one cap, in one arm, for one repetition (1-based). */
export interface CellKey {
  cap: number;
  arm: Arm;
  repetition: number;
}

/** The id of a cell; a pure function of (cap, arm, repetition), safe as a folder name. */
export function cellId({ cap, arm, repetition }: CellKey): CellId {
  if (!Number.isInteger(cap) || cap < 1 || !Number.isInteger(repetition) || repetition < 1 || !ARMS.includes(arm)) {
    throw new Error(`no cell id for cap ${cap}, arm ${arm}, repetition ${repetition}: caps and repetitions are whole numbers from 1, arms are ${ARMS.join(' or ')}`);
  }
  return `cap${cap}-rep${repetition}-${arm}`;
}

/** The (cap, arm, repetition) a cell id names; undefined for anything that is not one. */
export function parseCellId(id: string): CellKey | undefined {
  const m = CELL_ID.exec(id);
  return m ? { cap: Number(m[1]), repetition: Number(m[2]), arm: m[3] as Arm } : undefined;
}

const PAIR_ID = /^cap([1-9][0-9]*)-rep([1-9][0-9]*)$/;

/** A pair's stable name, `cap<cap>-rep<repetition>`: the two cells of one (cap, repetition). */
export const PairId = z.string().regex(PAIR_ID, 'is not a pair id (cap<N>-rep<N>)');
export type PairId = z.infer<typeof PairId>;

/** The two arms of one (cap, repetition): under `pairing: shared` they share planning and leaves. */
export function pairId(cap: number, repetition: number): PairId {
  return cellId({ cap, repetition, arm: 'gated' }).replace(/-gated$/, '');
}

/** The pair a cell belongs to (`cap2-rep1-ungated` → `cap2-rep1`). */
export function pairOfCell(id: CellId): PairId {
  const key = parseCellId(id);
  if (!key) throw new Error(`${JSON.stringify(id)} is not a cell id`);
  return pairId(key.cap, key.repetition);
}

/**
 * A session id as a file name: letters, digits, `_`, `-` and inner `.` kept, every other
 * byte written `%XX`, so two ids never share a file (an id is the key its spend is charged
 * to). Very long ids keep a readable head and a hash of the whole.
 */
export function sessionFileName(sessionId: string): string {
  if (sessionId === '') throw new Error('a session id cannot be empty');
  const escaped = Array.from(Buffer.from(sessionId, 'utf8'), (byte, i) => {
    const c = String.fromCharCode(byte);
    return /[A-Za-z0-9_-]/.test(c) || (c === '.' && i > 0) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }).join('');
  const name = escaped.length <= 200 ? escaped : `${escaped.slice(0, 180)}~${createHash('sha256').update(sessionId).digest('hex').slice(0, 16)}`;
  return `${name}.jsonl`;
}

export interface CellPaths {
  readonly root: string;
  readonly events: string;
  readonly transcripts: string;
  readonly result: string;
  readonly grade: string;
  readonly tree: string;
  /** The transcript file of one session (see sessionFileName). */
  transcript(sessionId: string): string;
}

/** The files of one pair: what its two cells share. */
export interface PairPaths {
  readonly root: string;
  /** The shared build's engine events (planning and leaves, the events that carry no `arm`). */
  readonly events: string;
}

export interface RunPaths {
  readonly root: string;
  readonly journal: string;
  readonly manifest: string;
  readonly summary: string;
  readonly report: string;
  readonly cells: string;
  readonly pairs: string;
  cell(id: CellId): CellPaths;
  pair(id: PairId): PairPaths;
}

/** The layout of the run folder at `root`. Pure: nothing is created. */
export function runPaths(root: string): RunPaths {
  const cells = path.join(root, 'cells');
  const pairs = path.join(root, 'pairs');
  return {
    root,
    journal: path.join(root, 'journal.jsonl'),
    manifest: path.join(root, 'manifest.yaml'),
    summary: path.join(root, 'summary.json'),
    report: path.join(root, 'report'),
    cells,
    pairs,
    pair(id) {
      if (!PAIR_ID.test(id)) throw new Error(`${JSON.stringify(id)} is not a pair id`);
      const dir = path.join(pairs, id);
      return { root: dir, events: path.join(dir, 'events.jsonl') };
    },
    cell(id) {
      if (!CELL_ID.test(id)) throw new Error(`${JSON.stringify(id)} is not a cell id`);
      const dir = path.join(cells, id);
      const transcripts = path.join(dir, 'transcripts');
      return {
        root: dir,
        events: path.join(dir, 'events.jsonl'),
        transcripts,
        result: path.join(dir, 'result.json'),
        grade: path.join(dir, 'grade.json'),
        tree: path.join(dir, 'tree'),
        transcript: (sessionId) => path.join(transcripts, sessionFileName(sessionId)),
      };
    },
  };
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** `<manifest name>-<UTC time>`, e.g. `smoke-20260102T030405Z`: sorts by time, safe on every filesystem. */
export function defaultRunName(manifestName: string, now: Date): string {
  if (!SAFE_NAME.test(manifestName)) throw new Error(`manifest name ${JSON.stringify(manifestName)} is not safe in a folder name`);
  const stamp = now.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `${manifestName}-${stamp}`;
}

/** What is at a `--out` path: nothing, an empty folder, a run (it has a journal), or something else. */
export type RunFolderState = 'absent' | 'empty' | 'run' | 'foreign';

export async function inspectRunFolder(root: string): Promise<RunFolderState> {
  const info = await stat(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (!info) return 'absent';
  if (!info.isDirectory()) return 'foreign';
  const names = await readdir(root);
  if (names.length === 0) return 'empty';
  return names.includes('journal.jsonl') ? 'run' : 'foreign';
}

/**
 * Starts a new run folder at `root` (absent or empty): creates it and `cells/`, and writes
 * the manifest's exact bytes, durably, before any journal exists. Refuses a folder that
 * already holds anything, so a new sweep never writes into an old one.
 */
export async function createRunFolder(root: string, manifestBytes: Uint8Array, shownAs = root): Promise<RunPaths> {
  const state = await inspectRunFolder(root);
  if (state === 'run') throw new UsageError(`${shownAs} already holds a sweep (journal.jsonl); resume it with the same command, or choose another --out`);
  if (state === 'foreign') throw new UsageError(`${shownAs} exists and is not an empty folder or a run folder; choose another --out`);
  const paths = runPaths(root);
  await mkdir(paths.cells, { recursive: true });
  const fh = await open(paths.manifest, 'wx');
  try {
    await fh.writeFile(manifestBytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await fsyncPath(root);
  return paths;
}

/**
 * Creates `<runsDir>/<manifest name>-<UTC time>`; if two sweeps start in the same second,
 * the later one gets `-2`, `-3`... (the folder is claimed atomically by mkdir).
 */
export async function claimDefaultRunFolder(runsDir: string, manifestName: string, now: Date): Promise<string> {
  await mkdir(runsDir, { recursive: true });
  const base = defaultRunName(manifestName, now);
  for (let n = 1; n < 1000; n++) {
    const dir = path.join(runsDir, n === 1 ? base : `${base}-${n}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`could not claim a new run folder under ${runsDir} for ${base}`);
}
