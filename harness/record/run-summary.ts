import path from 'node:path';
import { count, tokens as tokenFigure, usd } from '../internal/figures.js';
import { textTable } from '../internal/text-table.js';
import type { Manifest } from '../manifest/manifest.js';
import { survivalTally, type CellMeasurement } from '../journal/cell-measurement.js';
import { parseCellId, type CellId } from '../journal/run-folder.js';
import type { SessionGate } from './session-gate.js';
import type { CellOutcome, SweepEvent } from '../journal/sweep-events.js';
import type { SweepCounts } from './sweep-exit.js';
import { rateShare } from './rate-watch.js';

/**
 * The summary of a `harness record` invocation (summary.json and the terminal table): every
 * cell of the whole journal with its latest outcome, score, survival and spend, and the caveats.
 * The full report is harness/report's.
 */

export interface SummaryCell {
  cell: CellId;
  status: CellOutcome['status'] | 'not started';
  reason?: string;
  /** Requirements passing in the graded root tree, of the spec's total. */
  score?: { passing: number; total: number };
  survival?: { survived: number; claimed: number };
  spend?: { sessions: number; tokens: number; costUsd: number | null };
}

/** A rate controller of this invocation as the journal last recorded it (its final event when the sweep ended cleanly). */
export interface SummaryController {
  provider: string;
  limit: number;
  min: number;
  max: number;
  pacing: 'headers' | 'aimd' | 'fixed';
  episodes: number;
  attempts: number;
  rateLimited: number;
  /** rateLimited over attempts; 0 with no attempts. */
  rateLimitedShare: number;
}

export interface RunSummary {
  version: 1;
  /** The staged cells of this invocation by their latest outcome (sweep-exit.ts): what the exit code is decided on. */
  counts: SweepCounts;
  run: string;
  manifest: string;
  simulated: boolean;
  stop: { reason: string; detail: string };
  sessions: { counted: number; maxSessions: number };
  /** US dollars every live call of the sweep cost (all invocations, each once; journal/paid.ts), against max_cost_usd (null: none). */
  paid: { usd: number; maxCostUsd: number | null };
  cells: SummaryCell[];
  /** An adaptive sweep's controllers in this invocation, from the journal's rate_control_changed events; absent for a fixed sweep. */
  controllers?: SummaryController[];
  caveats: string[];
}

/** Each provider's last rate_control_changed event since the last run_started: the same figures the journal holds. */
export function controllersOf(events: readonly SweepEvent[]): SummaryController[] {
  const last = new Map<string, SummaryController>();
  for (const e of events) {
    if (e.type === 'run_started') last.clear();
    if (e.type !== 'rate_control_changed') continue;
    const { provider, limit, min, max, pacing, episodes, attempts, rateLimited } = e;
    last.set(provider, { provider, limit, min, max, pacing, episodes, attempts, rateLimited, rateLimitedShare: rateShare(rateLimited, attempts) });
  }
  return [...last.values()];
}

/** The staged cells' counts, by their latest outcome in the journal. */
export function stagedCounts(staged: readonly CellId[], events: readonly SweepEvent[], stop: string): SweepCounts {
  const latest = new Map<string, CellOutcome>();
  for (const e of events) if (e.type === 'cell_finished') latest.set(e.cellId, e.outcome);
  const counts: SweepCounts = { staged: staged.length, measured: 0, transient: 0, permanent: 0, unmeasured: 0, notStarted: 0 };
  for (const id of staged) {
    const o = latest.get(id);
    // A cell a ceiling kept from starting is unmeasured by it, as one it cut is.
    if (!o) counts[stop === 'ceiling' ? 'unmeasured' : 'notStarted']++;
    else if (o.status === 'measured') counts.measured++;
    else if (o.status === 'unmeasured') counts.unmeasured++;
    else if (o.transient) counts.transient++;
    else counts.permanent++;
  }
  return counts;
}

export function summarise(runDir: string, manifest: Manifest, events: readonly SweepEvent[], gate: SessionGate, caveats: string[], outcome: { reason: string; detail: string; unmeasured: CellId[] }, simulated: boolean, staged: readonly CellId[]): RunSummary {
  const latest = new Map<CellId, CellOutcome>();
  const order: CellId[] = [];
  for (const e of events) {
    if (e.type === 'cell_started' && !order.includes(e.cellId)) order.push(e.cellId);
    if (e.type === 'cell_finished') latest.set(e.cellId, e.outcome);
  }
  const cells: SummaryCell[] = order.map((cell) => {
    const o = latest.get(cell);
    if (!o) return { cell, status: 'not started', reason: 'interrupted before it finished' };
    if (o.status === 'unavailable') return { cell, status: o.status, reason: `${o.transient ? 'transient' : 'permanent'}, ${o.reason}: ${o.detail}` };
    if (o.status === 'unmeasured') return { cell, status: o.status, reason: 'a spend ceiling was reached' };
    return { cell, status: 'measured', ...measuredFigures(o.result) };
  });
  const all = [...caveats];
  if (outcome.reason === 'ceiling' && outcome.unmeasured.length > 0) {
    all.push(`CEILING: a spend ceiling stopped the sweep (${outcome.detail}); ${outcome.unmeasured.length} cell(s) left unmeasured: ${outcome.unmeasured.join(', ')}.`);
  }
  const cut = [...latest.entries()].filter(([, o]) => o.status === 'measured' && o.result.cutShort?.length).map(([id]) => id);
  if (cut.length > 0) all.push(`CUT SHORT: ${cut.join(', ')} had leaves or merges cut short by their token allocation or the length limit; measured, but the losses may be the budget's (raise budget: in the manifest).`);
  if (outcome.reason === 'quota') all.push(`QUOTA: the provider's quota ran out (${outcome.detail}); paid work is kept, the triggering cell is unavailable.`);
  const controllers = controllersOf(events);
  if (simulated) all.push('SIMULATED: these cells were recorded on the built-in simulated population (in process or served over HTTP), not real models.');
  return {
    version: 1,
    counts: stagedCounts(staged, events, outcome.reason),
    run: path.basename(runDir),
    manifest: manifest.name,
    simulated,
    stop: { reason: outcome.reason, detail: outcome.detail },
    sessions: { counted: gate.ceiling.counted, maxSessions: gate.ceiling.maxSessions },
    paid: { usd: gate.spend.paidUsd, maxCostUsd: gate.spend.maxUsd },
    cells,
    ...(controllers.length ? { controllers } : {}),
    caveats: all,
  };
}

function measuredFigures(m: CellMeasurement): Pick<SummaryCell, 'score' | 'survival' | 'spend'> {
  const tally = survivalTally(m);
  const parts = [m.spend.leaf, m.spend.planning, m.spend.merge];
  const unpriced = parts.some((p) => p.costUsd === null);
  return {
    score: { passing: m.grade.passing.length, total: m.grade.total },
    survival: { survived: tally.levels.reduce((n, l) => n + l.surviving, 0), claimed: tally.levels.reduce((n, l) => n + l.claimed, 0) },
    spend: {
      sessions: parts.reduce((n, p) => n + p.sessions, 0),
      tokens: parts.reduce((n, p) => n + p.tokens.input + p.tokens.output, 0),
      costUsd: unpriced ? null : parts.reduce((n, p) => n + (p.costUsd ?? 0), 0),
    },
  };
}

export function renderSummary(s: RunSummary, shownRun: string): string {
  const rows = s.cells.map((c) => {
    const key = parseCellId(c.cell);
    return [
      c.cell, key ? String(key.cap) : '', c.status,
      c.score ? `${c.score.passing}/${c.score.total}` : '',
      c.survival ? `${c.survival.survived}/${c.survival.claimed}` : '',
      c.spend ? count(c.spend.sessions) : '', c.spend ? tokenFigure(c.spend.tokens) : '', c.spend ? (c.spend.costUsd === null ? 'unknown' : usd(c.spend.costUsd)) : '',
      c.reason ?? '',
    ];
  });
  const lines = [
    '',
    `harness record: ${s.manifest}${s.simulated ? ' (SIMULATED)' : ''}, ${s.stop.reason}: ${s.stop.detail}`,
    `  cells: ${countsLine(s.counts)}`,
    `  sessions ${count(s.sessions.counted)} of max_sessions ${count(s.sessions.maxSessions)}; paid ${usd(s.paid.usd)}${s.paid.maxCostUsd === null ? '' : ` of max_cost_usd ${usd(s.paid.maxCostUsd)}`} (every invocation, each live call once)`,
    '',
    ...textTable([['cell', 'cap', 'status', 'score', 'survived', 'sessions', 'tokens', 'cost', 'reason'], ...rows], ['left', 'right', 'left', 'right', 'right', 'right', 'right', 'right', 'left']),
    ...controllerLines(s.controllers ?? []),
    ...(s.caveats.length ? ['', ...s.caveats.map((c) => `  ${c}`)] : []),
    `  run folder: ${shownRun}`,
    '',
  ];
  return `${lines.join('\n')}`;
}

function controllerLines(controllers: readonly SummaryController[]): string[] {
  if (controllers.length === 0) return [];
  const rows = controllers.map((c) => [c.provider, count(c.limit), `${count(c.min)}-${count(c.max)}`, c.pacing, count(c.episodes), count(c.attempts), `${count(c.rateLimited)} (${(100 * c.rateLimitedShare).toFixed(1)}%)`]);
  return ['', ...textTable([['rate controller', 'final limit', 'bounds', 'pacing', 'episodes', 'attempts', '429s'], ...rows], ['left', 'right', 'right', 'left', 'right', 'right', 'right'])];
}

/** The staged cells in one line: every count named, zeros included, so a loss is never left out. */
export function countsLine(c: SweepCounts): string {
  return `${c.measured} of ${c.staged} staged measured; unavailable ${c.transient} transient, ${c.permanent} permanent; ${c.unmeasured} unmeasured by a ceiling; ${c.notStarted} not started`;
}
