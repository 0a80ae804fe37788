import type { RateControl, RateControlStatus } from '../../engine/index.js';
import type { SweepEventInput } from '../journal/sweep-events.js';

/**
 * Watches a sweep's rate controllers (one per provider key): polls each one's status, hands
 * the live view to the display, and journals its limit COALESCED.
 *
 * Why coalesced, and how: additive increase moves a limit by one every few seconds, so a
 * days-long sweep journaling every move would write more rate events than sessions, and a
 * resume reads every line. A controller's event is written when its limit or pacing differs
 * from the last one journaled for it AND at least `journalGapMs` (default 30 s) has passed
 * since that one; a change inside the gap is held and written at the first poll past it, with
 * the figures of that moment (so a burst of cuts is one event, at the limit they came to). The
 * first poll writes each controller's starting point, and `stop()` writes a `final` one for
 * each, whether or not it moved. At most 2,880 events per controller per day; the episode
 * and 429 counts in every event are the controller's own, never re-counted here.
 */

/** The 429s of the last `seconds`, from two polls of the controller's own counts. */
export interface RecentRate {
  attempts: number;
  rateLimited: number;
  /** How much time the two polls span (shorter than the window until the watch has run that long). */
  seconds: number;
}

/** What the display shows of one controller. */
export interface RateView {
  status: RateControlStatus;
  recent: RecentRate;
}

export interface RateWatchOptions {
  /** Appends one journal event; the watch never writes the journal itself. */
  append: (event: SweepEventInput) => Promise<unknown>;
  /** Called with every controller's view after each poll (the live display). Default: nothing. */
  onView?: (views: readonly RateView[]) => void;
  /** Clock, ms. Default Date.now. */
  now?: () => number;
  /** How often each controller is polled. Default 1,000 ms. */
  pollMs?: number;
  /** Least time between two journal events of one controller (the final one excepted). Default 30,000 ms. */
  journalGapMs?: number;
  /** Span of the display's "recent" 429 rate. Default 60,000 ms. */
  recentMs?: number;
}

export interface RateWatch {
  /** One poll now (the timer calls it; tests call it on an injected clock). */
  poll(): Promise<void>;
  /** Stops polling and journals each controller's final figures; resolves once they are durable. Idempotent. */
  stop(): Promise<void>;
}

/** A share as a person reads it: 0 when nothing was attempted, never NaN. */
export function rateShare(rateLimited: number, attempts: number): number {
  return attempts > 0 ? rateLimited / attempts : 0;
}

/** The journal's copy of a status: the same figures, by construction. */
export function rateEvent(status: RateControlStatus, final: boolean): SweepEventInput {
  const { provider, limit, min, max, pacing, episodes, attempts, rateLimited } = status;
  return { type: 'rate_control_changed', provider, limit, min, max, pacing, episodes, attempts, rateLimited, final };
}

interface Sample {
  atMs: number;
  attempts: number;
  rateLimited: number;
}

interface Watched {
  control: RateControl;
  /** Polls of the last recentMs, oldest first. */
  samples: Sample[];
  journaled?: { atMs: number; limit: number; pacing: RateControlStatus['pacing'] };
}

/** Starts watching `controls`; with none it does nothing at all (a sweep with a fixed limit). */
export function startRateWatch(controls: readonly RateControl[], options: RateWatchOptions): RateWatch {
  const now = options.now ?? Date.now;
  const gap = options.journalGapMs ?? 30_000;
  const recentMs = options.recentMs ?? 60_000;
  const watched: Watched[] = controls.map((control) => ({ control, samples: [] }));
  let stopped = false;
  let writing: Promise<unknown> = Promise.resolve();
  // A refused write is the journal's to report: after one, its every later append (the sweep's own) rejects too.
  const write = (event: SweepEventInput) => (writing = writing.then(() => options.append(event)).catch(() => undefined));

  const poll = async () => {
    if (stopped || watched.length === 0) return;
    const at = now();
    const views: RateView[] = [];
    for (const w of watched) {
      const status = w.control.status();
      w.samples.push({ atMs: at, attempts: status.attempts, rateLimited: status.rateLimited });
      while (w.samples.length > 1 && w.samples[0]!.atMs < at - recentMs) w.samples.shift();
      const oldest = w.samples[0]!;
      views.push({ status, recent: { attempts: status.attempts - oldest.attempts, rateLimited: status.rateLimited - oldest.rateLimited, seconds: (at - oldest.atMs) / 1000 } });
      const last = w.journaled;
      const moved = !last || last.limit !== status.limit || last.pacing !== status.pacing;
      if (moved && (!last || at - last.atMs >= gap)) {
        w.journaled = { atMs: at, limit: status.limit, pacing: status.pacing };
        void write(rateEvent(status, false));
      }
    }
    options.onView?.(views);
    await writing;
  };

  const timer = watched.length ? setInterval(() => void poll(), options.pollMs ?? 1000) : undefined;
  timer?.unref();
  void poll();
  return {
    poll,
    async stop() {
      if (stopped) {
        await writing;
        return;
      }
      stopped = true;
      if (timer) clearInterval(timer);
      for (const w of watched) void write(rateEvent(w.control.status(), true));
      await writing;
    },
  };
}
