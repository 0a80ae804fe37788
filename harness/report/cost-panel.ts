import type { Manifest } from '../manifest/manifest.js';
import { forecastCells, learnCostModel, learnOptionsOf } from '../plan/forecast.js';
import { billBasisOf, ownSessions } from '../plan/plan-arithmetic.js';
import { totalSpend, type CellMeasurement, type Spend } from '../journal/cell-measurement.js';
import { NO_SPEND } from './journal-cells.js';
import type { CostRow, Report } from './report-schema.js';

/**
 * The bill, against what was expected of it. Per cap: what the measured cells actually cost
 * (under shared pairing a pair's planning and leaves once), what the cells that produced no
 * measurement cost, the manifest's declared scenario for the same cells (billed as `harness
 * plan` bills them, the shared build once per pair too), and the forecast
 * `plan --from` would have made for them from the caps recorded below (the anchor's cap-1 cell
 * cost 192% of its declared figure; this shows whether a learned bill does better).
 */

/** The spend of a set of measured cells, the shared phase of a pair counted once. */
export function measuredSpend(cells: readonly CellMeasurement[]): Spend {
  const parts: Spend[] = [];
  const paid = new Set<string>();
  for (const cell of cells) {
    const pair = `${cell.cap}/${cell.repetition}`;
    if (cell.pairing === 'independent' || !paid.has(pair)) {
      paid.add(pair);
      parts.push(cell.spend.leaf, cell.spend.planning);
    }
    parts.push(cell.spend.merge);
  }
  return totalSpend(parts.length ? parts : [NO_SPEND]);
}

const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

export function costSection(measured: readonly CellMeasurement[], unmeasuredByCap: ReadonlyMap<number, Spend>, manifest: Manifest): Report['cost'] {
  const caps = [...new Set([...measured.map((c) => c.cap), ...unmeasuredByCap.keys()])].sort((a, b) => a - b);
  const basis = billBasisOf(manifest);
  const rows = caps.map((cap): CostRow => {
    const cells = measured.filter((c) => c.cap === cap);
    const actual = measuredSpend(cells);
    // The plan's own bill for exactly these cells (max_children's bound when set), so it counts what
    // `measuredSpend` counts: under shared pairing a pair's planning and leaves once, then each arm's merges.
    const declared = ownSessions(cells, basis).reduce((sum, own) => sum + own.sessions.total, 0);
    const below = measured.filter((c) => c.cap < cap);
    let forecast: CostRow['forecast'] = null;
    if (below.length > 0 && cells.length > 0) {
      const model = learnCostModel(below, learnOptionsOf(manifest));
      const figures = forecastCells(model, cells);
      forecast = { fromCaps: model.basis.caps, model, figures, actualOverForecast: ratio(actual.sessions, figures.sessions) };
    }
    const n = cells.length;
    return {
      cap,
      measuredCells: n,
      pairs: new Set(cells.map((c) => c.repetition)).size,
      actual,
      perCell:
        n === 0
          ? null
          : {
              sessions: actual.sessions / n,
              tokens: { input: actual.tokens.input / n, cached: actual.tokens.cached / n, output: actual.tokens.output / n },
              costUsd: actual.costUsd === null ? null : actual.costUsd / n,
            },
      unmeasured: unmeasuredByCap.get(cap) ?? NO_SPEND,
      declared: { branching: basis.branching, sessions: declared, ...(basis.bounded ? { bound: true } : {}) },
      forecast,
      actualOverDeclared: ratio(actual.sessions, declared),
    };
  });
  return { caps: rows, actual: totalSpend(rows.length ? rows.map((r) => r.actual) : [NO_SPEND]), unmeasured: totalSpend(rows.length ? rows.map((r) => r.unmeasured) : [NO_SPEND]) };
}
