import type { FaultPlan } from '../../harness/index.js';
import { textTable } from '../../harness/testing.js';
import { concurrencyText, type Concurrency } from '../../harness/index.js';
import { MIN_WINDOW_CALLS, TAIL_SHARE, WARM_UP_SHARE, throughputSweep, type SweepFigures, type SweepShape } from './throughput-sweep.js';

/**
 * `npm run bench -- throughput`: how close the sweep runs to what the provider allows, in one
 * run. Each row is one `harness record` over HTTP against the simulated server (sandboxes cost
 * nothing, see throughput-sweep.ts), measured over a steady window of at least 1,000 answered
 * calls after warm-up:
 *  - a request limit: answered calls per minute ÷ the limit, for the fixed 4 and the controller;
 *  - a token limit that binds first (the sweep's long prompts): tokens per minute ÷ the limit;
 *  - no limit: the controller against the best of a few fixed settings.
 * Limits are per minute but high (BENCH_THROUGHPUT_RPM, default 900) so 1,000 calls take
 * about a minute each; latency is 100–300 ms as a hosted endpoint's short calls are.
 */

/**
 * Calls per minute the limits allow: the request limit directly; the token limit as this many
 * calls of the sweep's mean size (measured by the unlimited rows), under a request limit twice
 * as high, so tokens bind first. 900 lies between what the fixed 4 reaches on this shared
 * 2-core machine (650 to 950 calls/min, by its load) and what the sweep can make at all (1,300
 * to 2,300 at 16 to 64 sessions), so both a low fixed limit and a controller that stops short show.
 */
const CALLS_PER_MIN = Number(process.env.BENCH_THROUGHPUT_RPM ?? 900);
/**
 * A cap-3 tree of branching 4 (64 leaves) makes about 480 calls per pair. Unlimited rows need no
 * long warm-up: 3 repetitions (about 1,450 calls) leave about 1,130 in the window. Limited rows
 * leave out their first 20 s too (a full bucket's burst, and the controller finding its level,
 * about 380 calls for a controller): 4 repetitions (about 1,930 calls) leave about 1,400.
 */
const REPS = { unlimited: 3, limited: Number(process.env.BENCH_THROUGHPUT_REPS ?? 4) };
const SHAPE: SweepShape = { cap: 3, branching: 4, repetitions: REPS.limited };
/** The server's buckets hold 6 s of their minute (burst 0.1), so after 20 s any head start is spent. */
const BURST = 0.1;
const WARM_UP_S = 20;
const LATENCY: FaultPlan['latency'] = { distribution: 'uniform', min_ms: 100, max_ms: 300 };
/** The controller's bounds: room both ways (a token limit wants fewer than 4 calls in flight, no limit wants many). */
export const CONTROLLER: Concurrency = { min: 1, start: 8, max: 128 };
const FIXED_UNLIMITED = [4, 16, 32];
/** Goals of the issue. "No slower than the best fixed" is read as within 5%: runs on this shared machine differ by that much. */
const GOAL = { ratio: 0.85, limitedShare: 0.05, unlimitedVsBest: 0.95 };

interface Row {
  group: string;
  name: string;
  concurrency: Concurrency;
  figures: SweepFigures;
  /** The figure the row's goal is about, and the limit it is measured against. */
  ratio?: number;
  goal?: string;
}

/** The server's provider model: latency always; limits as token buckets with a 6 s burst, with or without x-ratelimit-* headers. */
function plan(limits?: { requests_per_minute: number; tokens_per_minute?: number }, headers = true): FaultPlan {
  return { version: 2, seed: 22, latency: LATENCY, windows: [], ...(limits ? { limits: { ...limits, burst: BURST, headers } } : {}) };
}

/** The limited rows: the fixed 4 (it reads no headers), and the controller paced by headers, then finding the limit from 429s alone. */
const LIMITED = [
  { name: 'fixed 4', concurrency: 4 as Concurrency, headers: true },
  { name: 'controller, headers', concurrency: CONTROLLER, headers: true },
  { name: 'controller, no headers', concurrency: CONTROLLER, headers: false },
];

async function row(group: string, name: string, concurrency: Concurrency, faults: FaultPlan): Promise<Row> {
  const limited = faults.limits !== undefined;
  const shape = { ...SHAPE, repetitions: limited ? REPS.limited : REPS.unlimited };
  const figures = await throughputSweep({ concurrency, faults, shape, ...(limited ? { warmUpS: WARM_UP_S } : {}) });
  process.stderr.write(`throughput: ${group} · ${name} (${concurrencyText(concurrency)}): ${Math.round(figures.callsPerMin)} calls/min over ${figures.windowCalls} calls, ${figures.wallSeconds.toFixed(0)} s\n`);
  return { group, name, concurrency, figures };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const clean = (f: SweepFigures) => f.cellsLost === 0 && f.paidTwiceServer === 0 && f.paidTwiceTranscripts === 0 && f.unrecorded === 0;

/** Sets a limited row's ratio and goal verdict; the fixed rows carry the ratio alone, for comparison. */
function judged(r: Row, ratio: number, controller: boolean): Row {
  if (!controller) return { ...r, ratio };
  const met = ratio >= GOAL.ratio && r.figures.limitedShareWindow <= GOAL.limitedShare && clean(r.figures) && r.figures.windowCalls >= MIN_WINDOW_CALLS;
  return { ...r, ratio, goal: `${met ? 'met' : 'NOT MET'} (>= ${GOAL.ratio}, 429s <= ${pct(GOAL.limitedShare)}, nothing lost or paid twice)` };
}

export async function throughputBench(): Promise<{ lines: string[] }> {
  const rows: Row[] = [];
  // No limit first: the best fixed setting, and the tokens per call the token limit is set from.
  const unlimited: Row[] = [];
  for (const n of FIXED_UNLIMITED) unlimited.push(await row('no limit', `fixed ${n}`, n, plan()));
  const best = unlimited.reduce((a, b) => (b.figures.callsPerMin > a.figures.callsPerMin ? b : a));
  const controllerFree = await row('no limit', 'controller', CONTROLLER, plan());
  const vsBest = controllerFree.figures.callsPerMin / best.figures.callsPerMin;
  rows.push(...unlimited.map((r) => ({ ...r, ratio: r.figures.callsPerMin / best.figures.callsPerMin })));
  rows.push({ ...controllerFree, ratio: vsBest, goal: `${vsBest >= GOAL.unlimitedVsBest && clean(controllerFree.figures) ? 'met' : 'NOT MET'} (>= ${GOAL.unlimitedVsBest} of the best fixed, ${best.name})` });

  for (const l of LIMITED) {
    const r = await row(`${CALLS_PER_MIN} requests/min`, l.name, l.concurrency, plan({ requests_per_minute: CALLS_PER_MIN }, l.headers));
    rows.push(judged(r, r.figures.callsPerMin / CALLS_PER_MIN, l.concurrency !== 4));
  }

  const tokensPerCall = unlimited.reduce((sum, r) => sum + r.figures.tokensPerCall, 0) / unlimited.length;
  const tpm = Math.round(CALLS_PER_MIN * tokensPerCall);
  for (const l of LIMITED) {
    const r = await row(`${tpm.toLocaleString('en-US')} tokens/min`, l.name, l.concurrency, plan({ requests_per_minute: 2 * CALLS_PER_MIN, tokens_per_minute: tpm }, l.headers));
    rows.push(judged(r, r.figures.tokensPerMin / tpm, l.concurrency !== 4));
  }
  return { lines: render(rows, tpm, tokensPerCall) };
}

function render(rows: Row[], tpm: number, tokensPerCall: number): string[] {
  const head = ['limit', 'setting', 'window calls', 'window s', 'calls/min', 'tokens/min', 'ratio', '429 window', '429 all', 'cells lost', 'paid twice (server/transcripts)', 'goal'];
  const body = rows.map((r) => {
    const f = r.figures;
    return [
      r.group, `${r.name} (${concurrencyText(r.concurrency)})`, String(f.windowCalls), f.windowSeconds.toFixed(1), Math.round(f.callsPerMin).toLocaleString('en-US'), Math.round(f.tokensPerMin).toLocaleString('en-US'),
      r.ratio?.toFixed(2) ?? '', pct(f.limitedShareWindow), pct(f.limitedShareAll), String(f.cellsLost), `${f.paidTwiceServer}/${f.paidTwiceTranscripts}${f.unrecorded ? ` (${f.unrecorded} unrecorded)` : ''}`, r.goal ?? '',
    ];
  });
  return [
    `throughput: harness record over HTTP against the simulated server, latency 100-300 ms, token buckets holding ${BURST * 60} s of their minute, sandboxes free; cap ${SHAPE.cap}, branching ${SHAPE.branching}, ${REPS.unlimited} repetitions per unlimited row, ${REPS.limited} per limited row`,
    `steady window: the answered calls after the first ${pct(WARM_UP_SHARE)} (limited rows: and the first ${WARM_UP_S} s) and before the last ${pct(TAIL_SHARE)}, at least ${MIN_WINDOW_CALLS}; ratio: no limit, calls/min over the best fixed row; request limit, calls/min over ${CALLS_PER_MIN}; token limit (requests ${2 * CALLS_PER_MIN}/min), tokens/min over ${tpm} (${CALLS_PER_MIN} calls of ${Math.round(tokensPerCall)} tokens, the unlimited rows' mean)`,
    '',
    ...textTable([head, ...body], ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'], ''),
    ...rows.filter((r) => r.figures.windowCalls < MIN_WINDOW_CALLS).map((r) => `WINDOW TOO SHORT: ${r.group} · ${r.name} had ${r.figures.windowCalls} calls in its window (raise BENCH_THROUGHPUT_REPS, default 4)`),
  ];
}
