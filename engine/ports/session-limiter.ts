import PQueue from 'p-queue';
import { systemClock, type Clock } from './clock.js';
import type { RateControlStatus } from './rate-control.js';

/**
 * The SessionLimiter port: how many agent sessions may be in flight at once. A sweep injects ONE
 * limiter shared by every cell and every level of every tree, so the bound is a property of the
 * sweep (the machine's Docker, the account's rate limit), not of each split: per-split queues
 * multiplied (4 x 4 sessions at once at depth 2).
 *
 * The engine takes a slot for each unit of one node's work that runs its sessions one after
 * another, and holds it for the unit's whole life, sandbox commands included: one node's
 * planning; one leaf's life (its container, checkers, falsification, work, meta-verifier and
 * verifier); one node's merge loop in one arm (its container, merger, seam checks, reviews). So
 * sessions in flight, and the containers they work in, never exceed the limit. A parent waiting
 * for its children holds no slot (it takes one only to plan, and again to merge once they are
 * done), so no limit, 1 included, can deadlock. A drift judge is a consultation inside the
 * session that asks for it, which waits for its answer: it runs on that session's slot.
 */
export interface SessionLimiter {
  /** Runs `work` once a slot is free, holding the slot until it settles. */
  run<T>(work: () => Promise<T>): Promise<T>;
}

/** A limiter of `concurrency` slots, first come first served. */
export function sessionLimiter(concurrency: number): SessionLimiter {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`sessions in flight must be a positive whole number, got ${concurrency}`);
  const queue = new PQueue({ concurrency });
  return { run: (work) => queue.add(work) };
}

/** What the adaptive limiter shows: the sessions it admits now and why. */
export interface AdaptiveSessionStatus {
  /** Sessions it admits at once now. */
  allowed: number;
  /** Sessions in flight now, and waiting for a slot. */
  running: number;
  queued: number;
  /** Calls the controllers allow in flight, summed. */
  callLimit: number;
  /** Measured share of a session's time spent wanting a call (in flight or waiting for a permit); null until measured. */
  dutyCycle: number | null;
  hostCapacity: number;
}

export interface AdaptiveSessionLimiter extends SessionLimiter {
  status(): AdaptiveSessionStatus;
}

export interface AdaptiveSessionLimiterOptions {
  /** The sweep's rate controllers, one per provider key; their limits summed are the calls it may have in flight. No default. */
  controls: readonly { status(): Pick<RateControlStatus, 'limit' | 'wantedCallMs'> }[];
  /** Most sessions at once whatever the controllers allow: the sandbox hosts' capacity. No default. */
  hostCapacity: number;
  /** Sessions admitted before anything is measured. Default: the controllers' limits summed (a duty cycle of 1), within [1, hostCapacity]. */
  initial?: number;
  /** Times the measurement and sleeps between re-evaluations. Default: the system clock. */
  clock?: Clock;
  /** How often the admission is re-evaluated while sessions are in flight, in ms. Default 1000. */
  sampleMs?: number;
  /** Time constant of the measurement's memory, in ms: older time weighs less, so the duty cycle follows the sweep's phases. Default 120 000. */
  memoryMs?: number;
  /** Session-time measured (session-ms, decayed) before the duty cycle is trusted. Default 30 000 (e.g. 3 sessions for 10 s). */
  trustAfterMs?: number;
}

/** Below this the duty cycle is taken as this: sessions that almost never call are still bounded by the hosts. */
const LEAST_DUTY = 0.01;

/**
 * A limiter that admits sessions in proportion to the calls the rate controllers allow:
 * allowed = clamp(ceil(sum of limits / duty cycle), 1, hostCapacity), where the duty cycle is
 * the time-integral of calls wanted (in flight plus waiting for a permit) over the integral of
 * sessions in flight, measured while it runs. A session holds its slot while its tools run, so
 * a session that spends half its time in its sandbox has a duty cycle of about 0.5 and twice
 * as many are admitted as calls are allowed. Calls waiting for a permit count as wanted: when
 * more sessions are admitted than the limit serves, they queue at the controller, the duty
 * cycle rises and admission falls back, so sessions do not hold sandboxes only to wait. It is
 * re-evaluated every `sampleMs` while sessions run, and at each start and end. Never below 1,
 * so no limit deadlocks (a parent waiting for its children holds no slot).
 */
export function adaptiveSessionLimiter(o: AdaptiveSessionLimiterOptions): AdaptiveSessionLimiter {
  if (!Number.isInteger(o.hostCapacity) || o.hostCapacity < 1) throw new RangeError(`host capacity must be a positive whole number, got ${o.hostCapacity}`);
  const clock = o.clock ?? systemClock;
  const sampleMs = o.sampleMs ?? 1000;
  const memoryMs = o.memoryMs ?? 120_000;
  const trustAfterMs = o.trustAfterMs ?? 30_000;
  const clamp = (n: number) => Math.max(1, Math.min(o.hostCapacity, Math.ceil(n)));
  const callLimit = () => o.controls.reduce((sum, c) => sum + c.status().limit, 0);
  // Cumulative call-ms wanted across the controllers: the calls' integral comes from their own exact accounts.
  const callsWanted = () => o.controls.reduce((sum, c) => sum + c.status().wantedCallMs, 0);
  const queue = new PQueue({ concurrency: clamp(o.initial ?? callLimit()) });
  let running = 0;
  let callArea = 0;
  let sessionArea = 0;
  let last = { at: clock.now().getTime(), calls: callsWanted(), sessions: 0 };
  let sampling = false;

  const duty = (): number | null => (sessionArea >= trustAfterMs ? Math.min(1, Math.max(LEAST_DUTY, callArea / sessionArea)) : null);
  const sample = () => {
    const now = clock.now().getTime();
    const dt = Math.max(0, now - last.at);
    const keep = Math.exp(-dt / memoryMs);
    const calls = callsWanted();
    // The calls of the interval are weighed as if spread evenly over it, like the sessions' (approximately the same decay).
    callArea = callArea * keep + Math.max(0, calls - last.calls);
    sessionArea = sessionArea * keep + last.sessions * dt;
    last = { at: now, calls, sessions: running };
    const d = duty();
    if (d !== null) queue.concurrency = clamp(callLimit() / d);
    else if (o.initial === undefined) queue.concurrency = clamp(callLimit());
  };
  // Samples only while there is work, so an idle limiter holds no timer (and a process can exit).
  const keepSampling = async () => {
    if (sampling) return;
    sampling = true;
    while (running > 0 || queue.size > 0) {
      await clock.sleep(sampleMs);
      sample();
    }
    sampling = false;
  };

  return {
    run: (work) =>
      queue.add(async () => {
        // Each change closes the interval before it at the old counts, then records the new ones.
        running++;
        sample();
        void keepSampling();
        try {
          return await work();
        } finally {
          running--;
          sample();
        }
      }),
    status: () => ({ allowed: queue.concurrency, running, queued: queue.size, callLimit: callLimit(), dutyCycle: duty(), hostCapacity: o.hostCapacity }),
  };
}
