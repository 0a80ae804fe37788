import type { TopLevelSpec } from 'vega-lite';
import { count, tokens as tokenText, usd } from '../../internal/figures.js';
import type { Report } from '../report-schema.js';
import { bandX, frame, hitLayer, panelTitle, panelWidth, slotOffset } from './chart-frame.js';

/**
 * The cost panel: per cap, what the measured cells cost against the two figures a researcher
 * had before paying (the manifest's declared scenario, and the forecast learned from the caps
 * recorded below), the tokens split into input, cached input and output, and the dollars when
 * every session's price was known. The three figures of a cap stand side by side as bars; a
 * legend names only the figures and token kinds drawn.
 */

const SOURCES: Record<string, string> = { actual: '#444', 'forecast from caps below': '#2a9d8f', 'declared scenario': '#e9c46a', 'declared bound (max_children)': '#e9c46a' };
const KINDS: Record<string, string> = { 'input, not cached': '#577590', 'input, cached': '#90be6d', output: '#f3722c' };
const HEIGHT = 200;

const scaleOf = (colours: Record<string, string>, drawn: readonly string[]) => {
  const domain = Object.keys(colours).filter((k) => drawn.includes(k));
  return { domain, range: domain.map((k) => colours[k]!) };
};

export function costSpec(report: Report): TopLevelSpec {
  const rows = report.cost.caps.filter((c) => c.measuredCells > 0);
  const figures = rows.flatMap((c) => [
    { cap: c.cap, source: 'actual', sessions: c.actual.sessions, usd: c.actual.costUsd },
    ...(c.forecast ? [{ cap: c.cap, source: 'forecast from caps below', sessions: c.forecast.figures.sessions, usd: c.forecast.figures.costUsd }] : []),
    { cap: c.cap, source: c.declared.bound ? 'declared bound (max_children)' : 'declared scenario', sessions: c.declared.sessions, usd: null },
  ]);
  const caps = rows.map((c) => c.cap);
  const x = bandX('cap', 'depth cap', caps);
  // A panel of $0.00 bars (the simulated provider) would only crowd the chart.
  const priced = figures.some((s) => s.source === 'actual' && s.usd !== null && s.usd > 0);
  const figurePanel = (field: 'sessions' | 'usd', title: string) => {
    // Dollars: the actual only. report.md prints no forecast in dollars, and every figure drawn is one a reader can find in its table.
    const values = figures
      .filter((s) => s[field] !== null && (field === 'sessions' || s.source === 'actual'))
      .map((s) => ({ ...s, value: s[field]!, tip: `cap ${s.cap}, ${s.source}: ${field === 'usd' ? usd(s[field]!) : `${count(Math.round(s[field]!))} sessions`}`, table: 'cost', row: `${s.cap}` }));
    const sources = Object.keys(SOURCES).filter((k) => values.some((v) => v.source === k));
    const offset = slotOffset('source', sources);
    return {
      title: panelTitle(title),
      width: panelWidth(caps.length, sources.length),
      height: HEIGHT,
      data: { values },
      layer: [
        { mark: { type: 'bar' as const, aria: false }, encoding: { x, xOffset: offset, y: { field: 'value', type: 'quantitative' as const, title, ...(field === 'usd' ? { axis: { format: '$,.2f' } } : {}) }, color: { field: 'source', type: 'nominal' as const, title: 'figure', scale: scaleOf(SOURCES, sources), legend: { orient: 'bottom' as const, direction: 'vertical' as const } } } },
        hitLayer(x, offset, HEIGHT),
      ],
    };
  };
  const split = rows.map((c) => ({ cap: c.cap, 'input, not cached': c.actual.tokens.input - c.actual.tokens.cached, 'input, cached': c.actual.tokens.cached, output: c.actual.tokens.output }));
  const tokenRows = split.flatMap((c) => Object.keys(KINDS).map((kind) => ({ cap: c.cap, kind, tokens: c[kind as keyof typeof c] as number })));
  const kinds = Object.keys(KINDS).filter((k) => tokenRows.some((t) => t.kind === k && t.tokens > 0));
  const tokensPanel = {
    title: panelTitle('tokens'),
    width: panelWidth(caps.length, 1),
    height: HEIGHT,
    layer: [
      {
        data: { values: tokenRows.filter((t) => kinds.includes(t.kind)) },
        mark: { type: 'bar' as const, aria: false },
        encoding: { x, y: { field: 'tokens', type: 'quantitative' as const, title: 'tokens (actual)', stack: 'zero' as const, axis: { format: '~s', labelExpr: "datum.value === 0 ? '0' : datum.label" } }, color: { field: 'kind', type: 'nominal' as const, title: 'tokens', scale: scaleOf(KINDS, kinds), legend: { orient: 'bottom' as const, direction: 'vertical' as const } }, order: { field: 'kind' } },
      },
      {
        data: { values: rows.map((c) => ({ cap: c.cap, tip: `cap ${c.cap}, tokens: ${tokenText(c.actual.tokens.input)} in (${tokenText(c.actual.tokens.cached)} cached), ${tokenText(c.actual.tokens.output)} out`, table: 'cost', row: `${c.cap}` })) },
        ...hitLayer(x, null, HEIGHT),
      },
    ],
  };
  const forecastLines = rows
    .filter((c) => c.forecast?.actualOverForecast != null)
    .map((c) => `cap ${c.cap}: actual ${Math.round(c.forecast!.actualOverForecast! * 100)}% of the forecast from ${c.forecast!.fromCaps.length === 1 ? 'cap' : 'caps'} ${c.forecast!.fromCaps.join(', ')}`);
  const specs = [figurePanel('sessions', 'sessions'), tokensPanel, ...(priced ? [figurePanel('usd', 'US dollars')] : [])];
  return {
    ...frame(report, 'cost per cap: actual against forecast and declared scenario', [
      `Measured cells only; under shared pairing a pair's planning and leaves count once. Declared scenario: every tree full at b = ${report.design.projectedBranching}.`,
      ...(forecastLines.length ? [forecastLines.join(' · ')] : []),
      ...(priced ? [] : [rows.some((c) => c.actual.costUsd === null) ? 'Dollars: unknown (a session had no known price), so no dollar panel.' : 'Dollars: $0 (nothing was charged), so no dollar panel.']),
    ], specs.reduce((w, s) => w + s.width, 0), specs.length),
    hconcat: specs,
    resolve: { scale: { x: 'independent', xOffset: 'independent', color: 'independent', y: 'independent' } },
  } as TopLevelSpec;
}
