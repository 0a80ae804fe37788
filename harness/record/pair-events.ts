import { rm } from 'node:fs/promises';
import { JsonlFile, type Arm, type EngineEvent, type EngineEventType, type EventSink } from '../../engine/index.js';

/**
 * The engine's events of one pair in `harness record`, written where the site reads them: the
 * events that carry no `arm` (the build both arms share: planning, leaves, their verdicts and
 * charges) once, in the pair's file; each arm's own (its merges, reviews and repairs; its whole
 * build under independent pairing, whose events all carry the arm) in its cell's file.
 *
 * A pair that runs again (a resume after a kill, a lost host) runs from the top, so it emits
 * every event again: {@link PairEventFiles.open} removes the files it will write before the
 * first event, so no event is written twice. A cell that finished before keeps its file (it was
 * complete when its `cell_finished` was journalled; see {@link PairEventFiles.flush}) and its
 * arm's events of the re-run are dropped, as its result.json is kept.
 *
 * Events are written as the engine emitted them, never redacted (docs/redaction.md): the text
 * of errors in them was redacted where it was made.
 */

/**
 * Event types not written. `tool_call` carries every tool's arguments and whole result, which
 * the session's transcript already holds (the call in the reply, the result in the next
 * request): in the example sweep they are most of the events' bytes, and no page reads them.
 */
export const UNWRITTEN_EVENTS: ReadonlySet<EngineEventType> = new Set(['tool_call']);

export interface PairEventFilesOptions {
  /** The pair's file (pairs/PAIR/events.jsonl). */
  pairFile: string;
  /** Each arm's cell file (cells/CELL/events.jsonl), or null for a cell that finished before: its file is kept and not written. */
  cellFiles: Partial<Record<Arm, string | null>>;
  /** Default {@link UNWRITTEN_EVENTS}. */
  unwritten?: ReadonlySet<EngineEventType>;
}

/** The writer of one pair's event files; `sink` is what the engine is given. */
export class PairEventFiles {
  readonly sink: EventSink;
  private readonly files = new Map<string, JsonlFile>();
  private pending: Array<Promise<void>> = [];
  private failure: unknown;
  private closed = false;

  private constructor(private readonly o: PairEventFilesOptions) {
    const unwritten = o.unwritten ?? UNWRITTEN_EVENTS;
    this.sink = {
      emit: (event: EngineEvent) => {
        if (unwritten.has(event.type) || this.closed) return;
        const target = event.arm === undefined ? o.pairFile : o.cellFiles[event.arm];
        // An arm of this pair whose cell finished before (null), or one this pair does not run (undefined).
        if (!target) return;
        this.write(target, event);
      },
    };
  }

  /** Removes every file this pair will write (never a finished cell's), so the run writes each from its start. */
  static async open(o: PairEventFilesOptions): Promise<PairEventFiles> {
    const targets = [o.pairFile, ...Object.values(o.cellFiles).filter((f): f is string => typeof f === 'string')];
    await Promise.all(targets.map((f) => rm(f, { force: true })));
    return new PairEventFiles(o);
  }

  private write(file: string, event: EngineEvent): void {
    let out = this.files.get(file);
    if (!out) this.files.set(file, (out = new JsonlFile(file)));
    // The engine's sink must not throw: a failed write is kept and thrown by the next flush.
    this.pending.push(out.append(event).catch((error: unknown) => void (this.failure ??= error)));
  }

  /** Resolves once every event emitted so far is written; throws the first write that failed. */
  async flush(): Promise<void> {
    const pending = this.pending;
    this.pending = [];
    await Promise.all(pending);
    if (this.failure !== undefined) throw this.failure;
  }

  /** Flushes and closes every file; events emitted after this (a straggler of a failed pair) are dropped. */
  async close(): Promise<void> {
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await Promise.all([...this.files.values()].map((f) => f.close()));
    }
  }
}
