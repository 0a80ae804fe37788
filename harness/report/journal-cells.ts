import { repetitionsAt, type Manifest } from '../manifest/manifest.js';
import { cellOrder } from '../plan/plan-arithmetic.js';
import { totalSpend, type CellMeasurement, type Spend } from '../journal/cell-measurement.js';
import { oneLine } from '../record/progress.js';
import { parseCellId, type CellKey } from '../journal/run-folder.js';
import type { SweepEvent, SweepEventOf } from '../journal/sweep-events.js';
import type { CellRowStatus } from './report-schema.js';

/**
 * Where every cell of a sweep stands, read from its journal: a pure fold over the events. The
 * design comes from the manifest (caps x arms x repetitions); the journal says which caps were
 * recorded and how each cell ended. The latest start or finish of a cell wins, because a
 * resume may start a cell that a ceiling left unmeasured.
 */

export interface CellState extends CellKey {
  id: string;
  status: CellRowStatus;
  reason: string | null;
  measurement: CellMeasurement | null;
  /** An unavailable cell's reason class and what happened, in one line. */
  unavailable: { reason: string; detail: string } | null;
  /** Every finished session that served the cell (from the journal), for cells without a measurement. */
  journalSpend: Spend;
}

export interface SweepCells {
  cells: CellState[];
  /** Caps any invocation recorded (`--depths`), ascending. */
  recordedCaps: number[];
  stop: { reason: SweepEventOf<'sweep_stopped'>['reason']; detail: string } | null;
  /** Spend of the finished sessions that served no measured cell, by cap: paid for, and measured nothing. */
  unmeasuredSpend: Map<number, Spend>;
}

export const NO_SPEND: Spend = { sessions: 0, tokens: { input: 0, cached: 0, output: 0 }, costUsd: 0, unpricedSessions: 0 };

function sessionSpend(event: SweepEventOf<'session_finished'>): Spend {
  return { sessions: 1, tokens: event.tokens, costUsd: event.costUsd, unpricedSessions: event.costUsd === null ? 1 : 0 };
}

const STOP_REASON: Record<SweepEventOf<'sweep_stopped'>['reason'], string> = {
  interrupted: 'the sweep was interrupted before this cell finished',
  quota: 'the provider account ran out of quota before this cell finished',
  fatal: 'the sweep stopped on a failure true of every cell before this cell finished',
  unreachable: 'a provider failed for its whole patience before this cell finished',
  ceiling: 'the session ceiling was reached before this cell started',
  completed: 'the sweep finished without this cell',
};

export function sweepCells(events: readonly SweepEvent[], manifest: Manifest): SweepCells {
  const recorded = new Set<number>();
  const last = new Map<string, SweepEventOf<'cell_started'> | SweepEventOf<'cell_finished'>>();
  // One entry per session of the sweep (its cells and id): a session a resume re-opened finishes
  // again with its whole spend, so the latest finish stands and none is counted twice.
  const sessions = new Map<string, { cellIds: readonly string[]; spend: Spend }>();
  let stop: SweepCells['stop'] = null;
  let unmeasuredAtStop = new Set<string>();
  for (const event of events) {
    switch (event.type) {
      case 'run_started':
        event.depths.forEach((d) => recorded.add(d));
        stop = null;
        break;
      case 'cell_started':
      case 'cell_finished':
        last.set(event.cellId, event);
        break;
      case 'session_finished':
        sessions.set(`${event.cellIds.join('+')} ${event.sessionId}`, { cellIds: event.cellIds, spend: sessionSpend(event) });
        break;
      case 'sweep_stopped':
        stop = { reason: event.reason, detail: event.detail };
        unmeasuredAtStop = new Set(event.unmeasured);
        break;
      default:
        break;
    }
  }
  const spends = new Map<string, Spend[]>();
  for (const { cellIds, spend } of sessions.values()) for (const id of cellIds) (spends.get(id) ?? spends.set(id, []).get(id)!).push(spend);
  const caps = manifest.depth_caps;
  const design = cellOrder(caps, manifest.arms, Object.fromEntries(caps.map((cap) => [cap, repetitionsAt(manifest, cap)])));
  // Cells the journal names beyond the design (it pins the manifest, so only by a bug) still show.
  const designed = new Set(design.map((c) => c.id));
  const ids = [...designed, ...[...last.keys()].filter((id) => !designed.has(id))];
  const cells = ids.map((id): CellState => {
    const key = parseCellId(id)!;
    const event = last.get(id);
    const journalSpend = totalSpend(spends.get(id) ?? [NO_SPEND]);
    const base = { ...key, id, journalSpend, measurement: null, unavailable: null };
    if (event?.type === 'cell_finished') {
      const { outcome } = event;
      if (outcome.status === 'measured') return { ...base, status: 'measured', reason: null, measurement: outcome.result };
      if (outcome.status === 'unavailable') {
        const detail = oneLine(outcome.detail);
        return { ...base, status: 'unavailable', reason: `${outcome.reason}: ${detail}`, unavailable: { reason: outcome.reason, detail } };
      }
      return { ...base, status: 'unmeasured', reason: 'the session ceiling was reached inside this cell' };
    }
    if (event?.type === 'cell_started') return { ...base, status: 'interrupted', reason: stop ? STOP_REASON[stop.reason]! : 'started, and not finished when the journal was read' };
    if (!recorded.has(key.cap)) return { ...base, status: 'not_recorded', reason: `cap ${key.cap} was not recorded (--depths)` };
    if (unmeasuredAtStop.has(id) || stop?.reason === 'ceiling') return { ...base, status: 'unmeasured', reason: STOP_REASON.ceiling! };
    return { ...base, status: 'interrupted', reason: stop ? STOP_REASON[stop.reason]! : 'not started when the journal was read' };
  });
  const measured = new Set(cells.filter((c) => c.status === 'measured').map((c) => c.id));
  const wasted = new Map<number, Spend[]>();
  for (const { cellIds, spend } of sessions.values()) {
    if (cellIds.some((id) => measured.has(id))) continue;
    const cap = parseCellId(cellIds[0]!)!.cap;
    (wasted.get(cap) ?? wasted.set(cap, []).get(cap)!).push(spend);
  }
  const unmeasuredSpend = new Map([...wasted].map(([cap, list]) => [cap, totalSpend(list)]));
  return { cells, recordedCaps: [...recorded].sort((a, b) => a - b), stop, unmeasuredSpend };
}
