import type { TopLevelSpec } from 'vega-lite';
import { ARMS } from '../../manifest/manifest.js';
import { share } from '../report-format.js';
import type { Report } from '../report-schema.js';
import { HIT_PX, armColours, bandX, frame, hitLayer, panelTitle, panelWidth, plural, slotOffset } from './chart-frame.js';

/**
 * Charts of the cells themselves: every measured cell as a dot (an earlier system's results
 * were bimodal, 39, 40 and 19 of 42, which a mean and a bar hide), with its spec fraction and
 * the tests its tree carried beside its survival; and the achieved-depth histogram per arm.
 * Each cell has its own slot within its cap (gated repetitions, then ungated), so no dot
 * hides another and each has a column of its own to point at.
 */

const HEIGHT = 220;
/** Panels wider than this are stacked rather than set side by side, so a large sweep grows down the page, not off it. */
const SIDE_BY_SIDE_MAX = 300;

function cellSentence(cell: Report['cells'][number]): string {
  const r = cell.result!;
  const survival = r.survival === null ? 'no survival (no resolved claim from a delivered leaf)' : `survival ${share(r.survival)} (${r.surviving} of ${plural(r.claimed, 'claim')})`;
  return `${cell.id}: ${survival}, spec ${r.specPassing}/${r.specTotal} passing, ${plural(r.testsCarried, 'test file')} carried, deepest leaf at level ${r.deepestLevel}`;
}

export function cellsSpec(report: Report): TopLevelSpec {
  const measured = report.cells.filter((c) => c.result);
  const slotOf = (c: { arm: string; repetition: number }) => `${c.arm} ${c.repetition}`;
  const slots = ARMS.flatMap((arm) => [...new Set(measured.filter((c) => c.arm === arm).map((c) => c.repetition))].sort((a, b) => a - b).map((rep) => slotOf({ arm, repetition: rep })));
  const values = measured.map((cell) => ({
    id: cell.id,
    cap: cell.cap,
    arm: cell.arm,
    slot: slotOf(cell),
    survival: cell.result!.survival,
    specFraction: cell.result!.specFraction,
    testsCarried: cell.result!.testsCarried,
    tip: cellSentence(cell),
    table: 'cells',
    row: cell.id,
  }));
  const caps = [...new Set(measured.map((c) => c.cap))].sort((a, b) => a - b);
  const x = bandX('cap', 'depth cap', caps);
  const offset = slotOffset('slot', slots);
  const colours = armColours(measured.map((c) => c.arm));
  const width = Math.max(HIT_PX * 3, panelWidth(Math.max(1, caps.length), Math.max(1, slots.length)));
  const panel = (field: 'survival' | 'specFraction' | 'testsCarried', title: string, heading: string) => ({
    title: panelTitle(heading),
    width,
    height: HEIGHT,
    data: { values: values.filter((v) => v[field] !== null) },
    layer: [
      {
        mark: { type: 'point' as const, filled: true, size: 70, opacity: 0.85, aria: false },
        encoding: { x, xOffset: offset, y: { field, type: 'quantitative' as const, title, ...(field === 'testsCarried' ? { axis: { format: 'd', tickMinStep: 1 } } : { scale: { domain: [0, 1] } }) }, color: { field: 'arm', type: 'nominal' as const, title: 'arm', scale: colours, legend: { orient: 'bottom' as const, direction: 'horizontal' as const } } },
      },
      hitLayer(x, offset, HEIGHT),
    ],
  });
  const specs = [panel('survival', 'cell survival (all levels)', 'survival'), panel('specFraction', 'spec fraction (passing / requirements)', 'spec fraction'), panel('testsCarried', 'test files carried by the graded tree', 'tests carried')];
  const sideBySide = width <= SIDE_BY_SIDE_MAX;
  return {
    ...frame(report, 'every cell: survival, spec fraction and tests carried', [
      'One dot per measured cell, each in its own slot of its cap (gated repetitions, then ungated); no interval on a single cell (a leaf-level binomial interval would be the naive one).',
      ...(values.some((v) => v.survival === null) ? ['Cells with no resolved claim from a delivered leaf have no survival and appear only in the other two panels.'] : []),
    ], sideBySide ? width * 3 : width, sideBySide ? 3 : 1),
    ...(sideBySide ? { hconcat: specs } : { vconcat: specs }),
    resolve: { scale: { y: 'independent', color: 'shared' } },
  } as TopLevelSpec;
}

export function achievedDepthSpec(report: Report): TopLevelSpec {
  const values = report.depth.map((b) => ({
    cap: b.cap,
    arm: b.arm,
    level: b.deepestLevel,
    cells: b.cells,
    expected: b.expected,
    tip: `cap ${b.cap}, ${b.arm}: ${plural(b.cells, 'cell')} with the deepest leaf at level ${b.deepestLevel}${b.expected === null ? '' : `; ${b.expected.toFixed(2)} expected from the planted tree shapes`}`,
    table: 'depth',
    row: `${b.cap}-${b.arm}-${b.deepestLevel}`,
  }));
  const caps = [...new Set(values.map((b) => b.cap))].sort((a, b) => a - b);
  const arms = ARMS.filter((a) => values.some((v) => v.arm === a));
  const colours = armColours(arms);
  const top = Math.max(1, ...values.flatMap((v) => [v.cells, v.expected ?? 0]));
  const ticks = values.some((v) => v.expected !== null);
  const offset = slotOffset('arm', arms);
  const specs = caps.map((cap, i) => {
    const mine = values.filter((v) => v.cap === cap);
    const levels = [...new Set(mine.map((v) => v.level))].sort((a, b) => a - b);
    // Titled on the first panel only, as the y axis: the panels beside it share it (a second wording read as a second measure).
    const x = bandX('level', i === 0 ? 'deepest leaf level (root = 0)' : null, levels);
    const y = { type: 'quantitative' as const, scale: { domain: [0, top] }, title: i === 0 ? 'cells' : null, axis: { format: 'd', tickMinStep: 1 } };
    return {
      title: panelTitle(`cap ${cap}`),
      width: panelWidth(levels.length, arms.length),
      height: 200,
      data: { values: mine },
      layer: [
        { mark: { type: 'bar' as const, aria: false }, encoding: { x, xOffset: offset, y: { field: 'cells', ...y }, color: { field: 'arm', type: 'nominal' as const, title: 'arm', scale: colours, legend: { orient: 'bottom' as const, direction: 'horizontal' as const } } } },
        ...(ticks ? [{ transform: [{ filter: 'datum.expected !== null' }], mark: { type: 'tick' as const, color: '#222', thickness: 2, aria: false }, encoding: { x, xOffset: offset, y: { field: 'expected', ...y } } }] : []),
        hitLayer(x, offset, 200),
      ],
    };
  });
  return {
    ...frame(report, 'achieved depth per arm: how deep each tree actually went', [
      'A cap is a maximum the planner need not use; a tree that stopped short is binned on its own levels, never on its cap.',
      ...(report.design.pairing === 'shared' ? ['Under shared pairing both arms grade one planned tree, so their bars match by design.'] : []),
      ...(ticks ? ['— black tick: cells expected from the planted tree-shape distribution'] : []),
    ], specs.reduce((w, s) => w + s.width, 0), Math.max(1, specs.length)),
    hconcat: specs,
    resolve: { scale: { x: 'independent', y: 'shared', color: 'shared' }, axis: { x: 'independent', y: 'independent' } },
  } as TopLevelSpec;
}
