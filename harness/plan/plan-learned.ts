import { repetitionsAt, type Manifest } from '../manifest/manifest.js';
import type { CellMeasurement } from '../journal/cell-measurement.js';
import { forecastCells, learnCostModel, learnOptionsOf, type CostModel, type Forecast } from './forecast.js';
import { billBasisOf, cellOrder, cellSessions, treeShape } from './plan-arithmetic.js';

/**
 * `plan --from runs/NAME`: the cells of this plan that the run has not measured, forecast from
 * what the run's measured cells cost, beside the declared scenario for the same cells. Pure.
 */

export interface LearnedCap {
  cap: number;
  /** Cells of this cap still to record. */
  cells: number;
  /** The declared scenario for those cells: every tree full at projected_branching. */
  declaredSessions: number;
  forecast: Forecast;
}

export interface LearnedForecast {
  /** The run folder as the user wrote it. */
  run: string;
  /** False when the run recorded another manifest than this plan's (the forecast assumes the same agents). */
  sameManifest: boolean;
  /** Cells of this plan the run already measured. */
  recorded: number;
  model: CostModel;
  caps: LearnedCap[];
  total: { cells: number; declaredSessions: number; forecast: Forecast };
}

export function learnedForecast(manifest: Manifest, options: { caps: readonly number[]; run: string; sameManifest: boolean; cells: readonly CellMeasurement[] }): LearnedForecast {
  const model = learnCostModel(options.cells, learnOptionsOf(manifest));
  const measured = new Set(options.cells.map((c) => `cap${c.cap}-rep${c.repetition}-${c.arm}`));
  const planned = cellOrder(options.caps, manifest.arms, Object.fromEntries(options.caps.map((cap) => [cap, repetitionsAt(manifest, cap)])));
  const sharedPaid = options.cells.filter((c) => c.pairing === 'shared').map((c) => `${c.cap}/${c.repetition}`);
  const todo = planned.filter((cell) => !measured.has(cell.id));
  // The declared column is the plan's own figure: the bound's when max_children is set.
  const basis = billBasisOf(manifest);
  const perCell = (cap: number) => cellSessions(treeShape(basis.branching, cap), basis.mergeAttempts, basis.bounded).total;
  const caps = options.caps.flatMap((cap): LearnedCap[] => {
    const cells = todo.filter((c) => c.cap === cap);
    return cells.length === 0 ? [] : [{ cap, cells: cells.length, declaredSessions: perCell(cap) * cells.length, forecast: forecastCells(model, cells, { sharedPaid }) }];
  });
  return {
    run: options.run,
    sameManifest: options.sameManifest,
    recorded: planned.length - todo.length,
    model,
    caps,
    total: { cells: todo.length, declaredSessions: caps.reduce((n, c) => n + c.declaredSessions, 0), forecast: forecastCells(model, todo, { sharedPaid }) },
  };
}
