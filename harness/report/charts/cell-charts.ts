import type { TopLevelSpec } from 'vega-lite';
import type { Report } from '../report-schema.js';
import { ARM_COLOURS, frame } from './chart-frame.js';

/**
 * Charts of the cells themselves: every measured cell as a dot (an earlier system's results
 * were bimodal, 39, 40 and 19 of 42, which a mean and a bar hide), with its spec fraction and
 * the tests its tree carried beside its survival; and the achieved-depth histogram per arm.
 */

/** A dot's x: its cap, the arms either side, repetitions spread across a small band so no dot hides another. */
function dotX(cap: number, arm: string, index: number, count: number): number {
  const side = arm === 'gated' ? -0.18 : 0.18;
  const spread = count > 1 ? (index / (count - 1) - 0.5) * 0.24 : 0;
  return cap + side + spread;
}

export function cellsSpec(report: Report): TopLevelSpec {
  const measured = report.cells.filter((c) => c.result);
  const values = measured.map((cell) => {
    const same = measured.filter((c) => c.cap === cell.cap && c.arm === cell.arm);
    const r = cell.result!;
    return {
      id: cell.id,
      arm: cell.arm,
      x: dotX(cell.cap, cell.arm, same.indexOf(cell), same.length),
      survival: r.survival,
      specFraction: r.specFraction,
      spec: `${r.specPassing}/${r.specTotal}`,
      testsCarried: r.testsCarried,
      deepestLevel: r.deepestLevel,
    };
  });
  const caps = [...new Set(measured.map((c) => c.cap))].sort((a, b) => a - b);
  const x = { field: 'x', type: 'quantitative' as const, title: 'depth cap', scale: { domain: [caps[0]! - 0.5, caps.at(-1)! + 0.5], nice: false, zero: false }, axis: { values: caps, format: 'd', grid: false } };
  const tooltip = [{ field: 'id', title: 'cell' }, { field: 'survival', format: '.3f' }, { field: 'spec', title: 'spec passing' }, { field: 'testsCarried', title: 'tests carried' }, { field: 'deepestLevel', title: 'deepest level' }];
  const panel = (field: string, title: string, filter?: string) => ({
    width: 200,
    height: 220,
    ...(filter ? { transform: [{ filter }] } : {}),
    mark: { type: 'point' as const, filled: true, size: 45, opacity: 0.75 },
    encoding: { x, y: { field, type: 'quantitative' as const, title, ...(field === 'testsCarried' ? {} : { scale: { domain: [0, 1] } }) }, color: { field: 'arm', type: 'nominal' as const, scale: ARM_COLOURS }, tooltip },
  });
  return {
    ...frame(report, 'every cell: survival, spec fraction and tests carried', [
      'One dot per measured cell; no interval on a single cell (a leaf-level binomial interval would be the naive one).',
      'Cells with no resolved claim from a delivered leaf have no survival and appear only in the other two panels.',
    ]),
    data: { values },
    hconcat: [panel('survival', 'cell survival (all levels)', 'datum.survival !== null'), panel('specFraction', 'spec fraction (passing / requirements)'), panel('testsCarried', 'test files carried by the graded tree')],
  } as TopLevelSpec;
}

export function achievedDepthSpec(report: Report): TopLevelSpec {
  const values = report.depth.map((b) => ({ cap: `cap ${b.cap}`, arm: b.arm, level: b.deepestLevel, x: b.deepestLevel + (b.arm === 'gated' ? -0.17 : 0.17), cells: b.cells, expected: b.expected }));
  const caps = [...new Set(report.depth.map((b) => b.cap))].sort((a, b) => a - b);
  const levels = Array.from({ length: Math.max(...report.depth.map((b) => b.deepestLevel)) + 1 }, (_, i) => i);
  const x = { field: 'x', type: 'quantitative' as const, title: 'deepest leaf level (root = 0)', scale: { domain: [-0.5, levels.length - 0.5], nice: false, zero: false }, axis: { values: levels, format: 'd', grid: false } };
  return {
    ...frame(report, 'achieved depth per arm: how deep each tree actually went', [
      'A cap is a maximum the planner need not use; a tree that stopped short is binned on its own levels, never on its cap.',
      ...(report.design.pairing === 'shared' ? ['Under shared pairing both arms grade one planned tree, so their bars match by design.'] : []),
      ...(report.simulated ? ['— black tick: cells expected from the planted tree-shape distribution'] : []),
    ]),
    data: { values },
    facet: { column: { field: 'cap', type: 'nominal', title: null, sort: caps.map((c) => `cap ${c}`) } },
    spec: {
      width: 150,
      height: 200,
      layer: [
        { mark: { type: 'bar', width: 14 }, encoding: { x, y: { field: 'cells', type: 'quantitative', title: 'cells' }, color: { field: 'arm', type: 'nominal', scale: ARM_COLOURS, legend: { orient: 'bottom' } }, tooltip: [{ field: 'arm' }, { field: 'level' }, { field: 'cells' }, { field: 'expected', format: '.2f' }] } },
        ...(report.simulated ? [{ transform: [{ filter: 'datum.expected !== null' }], mark: { type: 'tick', color: '#222', thickness: 2, size: 16 }, encoding: { x, y: { field: 'expected', type: 'quantitative' } } }] : []),
      ],
    },
  } as TopLevelSpec;
}
