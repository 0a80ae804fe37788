import { count, plain, tokens, usd } from '../internal/figures.js';
import { textTable, wrap } from '../internal/text-table.js';
import type { NodeCost } from './forecast.js';
import type { LearnedForecast } from './plan-learned.js';
import type { PlanPower } from './plan-power.js';

/** The plan's text for `--from` (the learned forecast) and for power, each figure labelled with where it came from. */

const perNode = (name: string, cost: NodeCost) => `${name} ${cost.sessionsPerNode.toFixed(1)}${cost.source === 'declared' ? ' (declared: none recorded)' : ''}`;
const dollars = (n: number | null) => (n === null ? 'unknown' : usd(n));

export function learnedLines(f: LearnedForecast, options: { branching: string; priced: boolean }): string[] {
  const m = f.model;
  const shape =
    m.shape.source === 'declared'
      ? `shape    declared b = ${plain(m.shape.branching)} (no recorded node split, so nothing to learn it from)`
      : `shape    measured: ${m.shape.levels.map((l) => `level ${l.level} split ${Math.round(l.splitRate * 100)}% of ${l.withRoom} nodes, ${l.meanChildren.toFixed(2)} children`).join('; ')}; deeper levels take level ${m.shape.levels.at(-1)!.level}'s`;
  const room = `room     nodes may split at level <= cap ${m.room.offset < 0 ? '-' : '+'} ${Math.abs(m.room.offset)} (${m.room.source === 'measured' ? 'measured' : m.room.source === 'bounded' ? 'bounded by where the cap stopped recorded nodes' : "the engine's rule: nothing recorded says"})`;
  const nodes = `per node sessions: ${perNode('leaf', m.leaf)}; ${perNode('planning', m.planning)}; ${perNode('merges gated', m.merge.gated)}; ${perNode('ungated', m.merge.ungated)}`;
  const lines = [
    `Forecast learned from ${f.run}:`,
    `  ${count(m.basis.cells)} measured cells at caps ${m.basis.caps.join(', ')}; ${count(f.recorded)} of this plan's cells already measured.`,
    ...(f.sameManifest ? [] : ['  NOTE: that run recorded another manifest; the forecast assumes the same agents and spec.']),
    `  ${shape}`,
    `  ${room}`,
    `  ${nodes}`,
    '',
  ];
  if (f.caps.length === 0) return [...lines, '  Every cell of this plan is already measured: nothing left to forecast.'];
  const header = ['cap', 'cells to record', `declared sessions (b = ${options.branching}, full trees)`, 'forecast sessions', 'forecast tokens (in / out)', ...(options.priced ? ['forecast cost'] : [])];
  const row = (label: string, cells: number, declared: number, fc: LearnedForecast['total']['forecast']) => [
    label,
    String(cells),
    count(declared),
    count(fc.sessions),
    `${tokens(fc.tokens.input)} / ${tokens(fc.tokens.output)}`,
    ...(options.priced ? [dollars(fc.costUsd)] : []),
  ];
  const rows = [...f.caps.map((c) => row(String(c.cap), c.cells, c.declaredSessions, c.forecast)), row('all', f.total.cells, f.total.declaredSessions, f.total.forecast)];
  return [
    ...lines,
    ...textTable([header, ...rows], header.map((_, i) => (i === 0 ? 'left' : 'right'))),
    '',
    '  declared = the manifest\'s scenario; forecast = learned from the run (expected shape x measured sessions per node x',
    '  measured spend per session; a pair\'s planning and leaves once under shared pairing). Both are estimates.',
  ];
}

export function powerLines(p: PlanPower): string[] {
  const from =
    p.source.kind === 'run'
      ? `measured in ${p.source.run} (${p.source.caps.map((c) => `cap ${c.cap}: ${c.pairs} pairs, SD ${c.sd.toFixed(3)}`).join('; ')})`
      : p.source.named
        ? 'from analysis.pair_difference_sd in the manifest'
        : "the default of analysis.pair_difference_sd (an earlier system's spread); record caps 1-2 and use --from runs/NAME to measure it";
  const rows = p.caps.map((c) => [`cap ${c.cap}`, `${c.pairs} ${c.pairs === 1 ? 'pair' : 'pairs'}`, c.text]);
  return [
    `Power: the smallest gated - ungated survival difference each cap can detect (paired t test,`,
    `  alpha ${p.alpha}, ${Math.round(p.power * 100)}% power, exact noncentral t).`,
    ...wrap(`SD of pair differences ${p.sd.toFixed(3)}: ${from}.`, 96, '  ').map((l, i) => (i === 0 ? `  ${l}` : l)),
    ...(p.fallback ? wrap(`(--from: ${p.fallback}; the manifest's SD is used.)`, 96, '  ').map((l, i) => (i === 0 ? `  ${l}` : l)) : []),
    ...textTable(rows, ['left', 'right', 'left']),
  ];
}
