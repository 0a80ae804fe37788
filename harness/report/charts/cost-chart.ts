import type { TopLevelSpec } from 'vega-lite';
import type { Report } from '../report-schema.js';
import { frame } from './chart-frame.js';

/**
 * The cost panel: per cap, what the measured cells cost against the two figures a researcher
 * had before paying (the manifest's declared scenario, and the forecast learned from the caps
 * recorded below), the tokens split into input, cached input and output, and the dollars when
 * every session's price was known.
 */

const SOURCES = { domain: ['actual', 'forecast from caps below', 'declared scenario'], range: ['#444', '#2a9d8f', '#e9c46a'] };

export function costSpec(report: Report): TopLevelSpec {
  const rows = report.cost.caps.filter((c) => c.measuredCells > 0);
  const sessions = rows.flatMap((c) => [
    { cap: c.cap, source: 'actual', sessions: c.actual.sessions, usd: c.actual.costUsd },
    ...(c.forecast ? [{ cap: c.cap, source: 'forecast from caps below', sessions: c.forecast.figures.sessions, usd: c.forecast.figures.costUsd }] : []),
    { cap: c.cap, source: 'declared scenario', sessions: c.declared.sessions, usd: null },
  ]);
  const tokens = rows.flatMap((c) => [
    { cap: c.cap, kind: 'input, not cached', tokens: c.actual.tokens.input - c.actual.tokens.cached },
    { cap: c.cap, kind: 'input, cached', tokens: c.actual.tokens.cached },
    { cap: c.cap, kind: 'output', tokens: c.actual.tokens.output },
  ]);
  const x = { field: 'cap', type: 'ordinal' as const, title: 'depth cap', axis: { labelAngle: 0 } };
  const colour = { field: 'source', type: 'nominal' as const, title: null, scale: SOURCES, legend: { orient: 'bottom' as const, direction: 'vertical' as const, labelLimit: 220 } };
  // A panel of $0.00 bars (the simulated provider) would only crowd the chart.
  const priced = sessions.some((s) => s.source === 'actual' && s.usd !== null && s.usd > 0);
  const figurePanel = (field: 'sessions' | 'usd', title: string) => ({
    width: 220,
    height: 200,
    data: { values: sessions.filter((s) => s[field] !== null) },
    layer: [
      { transform: [{ filter: "datum.source === 'actual'" }], mark: { type: 'bar' as const, color: '#444', opacity: 0.85 }, encoding: { x, y: { field, type: 'quantitative' as const, title }, tooltip: [{ field: 'source' }, { field, format: ',.2f' }] } },
      { transform: [{ filter: "datum.source !== 'actual'" }], mark: { type: 'point' as const, filled: true, size: 110, shape: 'diamond' }, encoding: { x, y: { field, type: 'quantitative' as const }, color: colour, tooltip: [{ field: 'source' }, { field, format: ',.2f' }] } },
    ],
  });
  const forecastLines = rows
    .filter((c) => c.forecast?.actualOverForecast != null)
    .map((c) => `cap ${c.cap}: actual ${Math.round(c.forecast!.actualOverForecast! * 100)}% of the forecast from ${c.forecast!.fromCaps.length === 1 ? 'cap' : 'caps'} ${c.forecast!.fromCaps.join(', ')}`);
  return {
    ...frame(report, 'cost per cap: actual against forecast and declared scenario', [
      `Measured cells only; under shared pairing a pair's planning and leaves count once. Declared scenario: every tree full at b = ${report.design.projectedBranching}.`,
      ...(forecastLines.length ? [forecastLines.join(' · ')] : []),
      ...(priced ? [] : [rows.some((c) => c.actual.costUsd === null) ? 'Dollars: unknown (a session had no known price), so no dollar panel.' : 'Dollars: $0 (nothing was charged), so no dollar panel.']),
    ]),
    hconcat: [
      figurePanel('sessions', 'sessions'),
      {
        width: 220,
        height: 200,
        data: { values: tokens },
        mark: { type: 'bar' },
        encoding: { x, y: { field: 'tokens', type: 'quantitative', title: 'tokens (actual)', stack: 'zero', axis: { format: '~s' } }, color: { field: 'kind', type: 'nominal', title: null, scale: { domain: ['input, not cached', 'input, cached', 'output'], range: ['#577590', '#90be6d', '#f3722c'] }, legend: { orient: 'bottom', direction: 'vertical' } }, order: { field: 'kind' }, tooltip: [{ field: 'kind' }, { field: 'tokens', format: ',' }] },
      },
      ...(priced ? [figurePanel('usd', 'US dollars')] : []),
    ],
    resolve: { scale: { color: 'independent' } },
  } as TopLevelSpec;
}
