import { createLogUpdate } from 'log-update';
import type { SweepEvent } from '../journal/sweep-events.js';
import type { RateView } from './rate-watch.js';
import { initialProgress, reduceProgress, renderFrame, renderLine, withPaid, type ProgressSetup, type ProgressState } from './progress.js';

/** Where the display writes: a terminal stream, or anything with `write` off a terminal. */
export interface ProgressStream {
  write(text: string): unknown;
  /** Terminal width, when the stream is a terminal. */
  columns?: number;
}

export interface ProgressDisplayOptions {
  stream: ProgressStream;
  /** Redraw one block in place (a terminal), or print one line per cell start and end (CI, a pipe). */
  isTty: boolean;
  /** Clock, ms since the epoch. Default Date.now. */
  now?: () => number;
  /** Least time between two redraws on a terminal, and the tick that keeps the ETA moving. Default 250 ms. */
  redrawMs?: number;
  /** What the sweep has paid so far, across every invocation (the session gate's figure; journal/paid.ts). Default: 0. */
  paidUsd?: () => number;
}

export interface ProgressDisplay {
  /** Feeds one journal event (call it for every event, as it becomes durable). */
  apply(event: SweepEvent): void;
  /** The rate controllers as last polled (rate-watch.ts); a terminal shows them live, a pipe only their journaled changes. */
  rates(views: readonly RateView[]): void;
  readonly state: ProgressState;
  /** Draws the last frame and leaves it on screen. */
  stop(): void;
}

/**
 * The thin shell around progress.ts: keeps the state, and either redraws its frame through
 * log-update (throttled, plus a tick so the ETA counts down between events) or writes the
 * plain lines. Start it with the events a resume read, so the display begins where the
 * sweep stood.
 */
export function createProgressDisplay(setup: ProgressSetup, history: readonly SweepEvent[], options: ProgressDisplayOptions): ProgressDisplay {
  const now = options.now ?? Date.now;
  const paid = options.paidUsd ?? (() => 0);
  let state = withPaid(history.reduce(reduceProgress, initialProgress(setup)), paid());
  if (!options.isTty) {
    return {
      apply(event) {
        state = withPaid(reduceProgress(state, event), paid());
        const line = renderLine(state, event);
        if (line !== undefined) options.stream.write(`${line}\n`);
      },
      // Off a terminal a poll every second would flood the log: the journaled (coalesced) changes print instead.
      rates: () => undefined,
      get state() {
        return state;
      },
      stop: () => undefined,
    };
  }
  const redrawMs = options.redrawMs ?? 250;
  const log = createLogUpdate(options.stream as NodeJS.WritableStream, { showCursor: true });
  let rates: readonly RateView[] = [];
  const draw = () => log(renderFrame((state = withPaid(state, paid())), { now: now(), width: options.stream.columns ?? 80, rates }));
  let last = 0;
  let pending: NodeJS.Timeout | undefined;
  const redraw = () => {
    const wait = last + redrawMs - now();
    if (wait <= 0) {
      last = now();
      draw();
    } else pending ??= setTimeout(() => ((pending = undefined), redraw()), wait).unref();
  };
  const tick = setInterval(redraw, Math.max(redrawMs, 1000)).unref();
  draw();
  last = now();
  return {
    apply(event) {
      state = reduceProgress(state, event);
      redraw();
    },
    rates(views) {
      rates = views;
      redraw();
    },
    get state() {
      return state;
    },
    stop() {
      clearInterval(tick);
      if (pending) clearTimeout(pending);
      draw();
      log.done();
    },
  };
}
