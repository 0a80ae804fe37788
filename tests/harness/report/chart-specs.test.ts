import { readFile } from 'node:fs/promises';
import path from 'node:path';
import * as vega from 'vega';
import { describe, expect, it } from 'vitest';
import { CHARTS, chartSpecs, renderSvg } from '../../../harness/index.js';
import { textWidth, titledMarks } from '../../../harness/testing.js';
import { Report } from '../../../harness/index.js';

/**
 * The chart specs as a reader meets them: every figure has a hit column with its sentence as
 * tooltip and description (the SVG's <title>), names the report.md row printing it, and no
 * title, axis, legend or label shows a raw field name; every legend entry is a style some
 * drawn mark has; the canvas is sized to the drawing. Reports: the golden one (real
 * providers, uncalibrated intervals, a priced cost) and the committed SIMULATED example (1
 * pair a figure, so no interval at all).
 */

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
const load = async (file: string) => Report.parse(JSON.parse(await readFile(path.join(REPO, file), 'utf8')));
const REPORTS = {
  golden: await load('tests/harness/report/__snapshots__/golden/report.json'),
  example: await load('runs/example-sim/report/report.json'),
};

type Json = Record<string, unknown>;

function* objects(node: unknown): Generator<Json> {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const item of node) yield* objects(item);
    return;
  }
  yield node as Json;
  for (const value of Object.values(node)) yield* objects(value);
}

/** Every unit (a spec with a mark) with the data it draws: its own, or the nearest enclosing spec's, after a `datum.F !== null` filter. */
function units(spec: Json, inherited: Json[] = []): Array<{ mark: Json; encoding: Json; data: Json[] }> {
  const data = Array.isArray((spec.data as Json | undefined)?.values) ? ((spec.data as Json).values as Json[]) : inherited;
  const out: Array<{ mark: Json; encoding: Json; data: Json[] }> = [];
  if (spec.mark) {
    const filter = (spec.transform as Array<{ filter?: string }> | undefined)?.find((t) => t.filter)?.filter;
    const field = filter ? /^datum\.(\w+) !== null$/.exec(filter)?.[1] : undefined;
    if (filter && !field) throw new Error(`a filter this test cannot read: ${filter}`);
    const mark = typeof spec.mark === 'string' ? { type: spec.mark } : (spec.mark as Json);
    out.push({ mark, encoding: (spec.encoding as Json) ?? {}, data: field ? data.filter((d) => d[field] !== null) : data });
  }
  for (const key of ['layer', 'hconcat', 'vconcat', 'concat']) for (const child of (spec[key] as Json[] | undefined) ?? []) out.push(...units(child, data));
  if (spec.spec) out.push(...units(spec.spec as Json, data));
  return out;
}

/** Each legend of a rendered chart: its title and its entries' labels, in the order drawn. */
function legendsOf(svg: string): Array<{ title: string; labels: string[] }> {
  return svg.split('<g class="mark-group role-legend"').slice(1).map((chunk) => ({
    title: unescape(/role-legend-title[^>]*><text[^>]*>([^<]*)<\/text>/.exec(chunk)?.[1] ?? ''),
    labels: [...chunk.matchAll(/role-legend-label[^>]*><text[^>]*>([^<]*)<\/text>/g)].map((m) => unescape(m[1]!)),
  }));
}

const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&amp;/g, '&');
const isHit = (u: { encoding: Json }) => 'tooltip' in u.encoding;
const FIELD_NAME = /^[a-z]+(?:[A-Z_][a-z]+)+$|^(?:x|at|tip|row|slot|series|estimate|low|high|truth|href|value|source|kind|calibration)$/;

describe.each(Object.entries(REPORTS))('the charts of the %s report', (_name, report) => {
  const specs = chartSpecs(report);

  it('gives every figure a hit column carrying its sentence as tooltip and description, and names the table row printing it', () => {
    for (const { name, spec } of specs) {
      const all = units(spec as unknown as Json);
      const hits = all.filter(isHit);
      expect(hits.length, name).toBeGreaterThan(0);
      for (const hit of hits) {
        expect(hit.encoding.tooltip, name).toEqual({ field: 'tip', type: 'nominal' });
        expect(hit.encoding.description, name).toEqual({ field: 'tip', type: 'nominal' });
        expect(hit.mark, name).toMatchObject({ type: 'bar', opacity: 0 });
        for (const d of hit.data) {
          expect(typeof d.tip === 'string' && /: .*\d/.test(d.tip), `${name}: ${String(d.tip)}`).toBe(true);
          const table = CHARTS.find((c) => c.name === name)!.table.name;
          expect(typeof d.row, name).toBe('string');
          // A figure names its chart's own table; the two level curves' figures are printed in the headline (pooled) or the by-cap table.
          expect(name === 'survival-by-level' || name === 'paired-difference' ? ['pooled', 'by-cap'] : [table], name).toContain(d.table);
        }
      }
      // Only the hit columns speak to assistive technology; the visible marks are drawing.
      for (const u of all.filter((x) => !isHit(x))) expect(u.mark.aria, `${name} ${String(u.mark.type)}`).toBe(false);
    }
  });

  it('titles every axis, legend and panel in words, never a field name', () => {
    for (const { name, spec } of specs) {
      const titles: string[] = [];
      for (const o of objects(spec)) {
        if (typeof o.field === 'string' && typeof o.title === 'string') titles.push(o.title);
        if (o.title && typeof o.title === 'object' && typeof (o.title as Json).text === 'string') titles.push((o.title as Json).text as string);
      }
      expect(titles.length, name).toBeGreaterThan(1);
      for (const t of titles) expect(FIELD_NAME.test(t), `${name}: "${t}"`).toBe(false);
    }
  });

  it('titles the shared x axis of side-by-side panels one way (or once), and labels no zero tick with a unit ("0M")', async () => {
    for (const { name, spec } of specs) {
      const titles = new Map<string, Set<string>>();
      for (const u of units(spec as unknown as Json).filter((x) => !isHit(x))) {
        // x is the axis side-by-side panels share; y may measure a different figure per panel (the cost chart's sessions and dollars).
        for (const channel of ['x']) {
          const e = u.encoding[channel] as Json | undefined;
          if (typeof e?.field !== 'string' || typeof e.title !== 'string') continue;
          titles.set(e.field, (titles.get(e.field) ?? new Set()).add(e.title));
        }
      }
      for (const [field, set] of titles) expect([...set], `${name}: the titles of ${field}`).toHaveLength(1);
      const { svg } = await renderSvg(spec);
      const ticks = [...svg.matchAll(/role-axis-label[\s\S]*?<\/g>/g)].flatMap((m) => [...m[0].matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1]!));
      expect(ticks.length, name).toBeGreaterThan(0);
      expect(ticks.filter((t) => /^0(\.0+)?\s*[kMGB%]$/.test(t)), name).toEqual([]);
    }
  });

  it('names in a legend only the styles a drawn mark has', async () => {
    for (const { name, spec } of specs) {
      const drawn = new Map<string, Set<string>>();
      for (const u of units(spec as unknown as Json).filter((x) => !isHit(x))) {
        for (const channel of ['color', 'strokeDash']) {
          const field = (u.encoding[channel] as Json | undefined)?.field;
          if (typeof field !== 'string') continue;
          const title = String((u.encoding[channel] as Json).title);
          const set = drawn.get(title) ?? new Set<string>();
          // A bar of height 0 draws nothing.
          const y = (u.encoding.y as Json | undefined)?.field as string | undefined;
          for (const d of u.data) if (d[field] !== null && (u.mark.type !== 'bar' || !y || Number(d[y]) > 0)) set.add(String(d[field]));
          drawn.set(title, set);
        }
      }
      const { svg } = await renderSvg(spec);
      for (const legend of legendsOf(svg)) {
        expect(legend.labels.length, `${name}: legend ${legend.title}`).toBeGreaterThan(0);
        for (const label of legend.labels) expect([...(drawn.get(legend.title) ?? [])], `${name}: legend "${legend.title}" entry "${label}"`).toContain(label);
      }
    }
  });

  it('sizes each canvas to its drawing: never wider than its panels, their axes and the legends need', async () => {
    for (const { name, spec } of specs) {
      const panels = units(spec as unknown as Json).length > 0 ? [...objects(spec)].filter((o) => typeof o.width === 'number' && typeof o.height === 'number') : [];
      const plots = panels.reduce((w, p) => w + (p.width as number), 0);
      const stacked = 'vconcat' in spec;
      const widest = Math.max(...panels.map((p) => p.width as number));
      const { svg } = await renderSvg(spec);
      const width = Number(/<svg[^>]*\swidth="([0-9.]+)"/.exec(svg)![1]);
      // Per panel: its y axis (about 70 px), and the legends (up to 230 px) and the padding once.
      const room = (stacked ? widest + 70 : plots + panels.length * 70) + 24;
      expect(width, name).toBeLessThanOrEqual(Math.max(room, 364) + 230);
    }
  });
});

describe('the interval legend', () => {
  it('shows the one style drawn in the golden report (uncalibrated), and no interval legend where no interval is drawn', async () => {
    const legend = async (report: Report) => {
      const { svg } = await renderSvg(chartSpecs(report).find((c) => c.name === 'survival-by-level')!.spec);
      return legendsOf(svg).find((l) => l.title === 'interval')?.labels ?? [];
    };
    expect(await legend(REPORTS.golden)).toEqual(['uncalibrated']);
    expect(await legend(REPORTS.example)).toEqual([]);
  });
});

describe('the SVG a chart renders to', () => {
  it('gives each figure its sentence as a <title> (the tooltip), one per hit column, and nothing else one', async () => {
    for (const { name, spec } of chartSpecs(REPORTS.golden)) {
      const tips = units(spec as unknown as Json).filter(isHit).flatMap((u) => u.data.map((d) => String(d.tip)));
      const { svg } = await renderSvg(spec);
      const titles = [...svg.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => unescape(m[1]!));
      expect(titles.sort(), name).toEqual(tips.sort());
    }
  });

  it('names the drawing by its chart\'s title in words', async () => {
    for (const { name, spec } of chartSpecs(REPORTS.example)) {
      const { svg } = await renderSvg(spec);
      expect(/^<svg aria-label="([^"]*)"/.exec(svg)?.[1], name).toBe(spec.usermeta?.title);
      expect(svg, name).toMatch(/^<svg aria-label="smoke: [a-z][^"]+ \(SIMULATED\)"/);
    }
  });

  it('titles a self-closing or an open mark element, and leaves unlabelled ones alone', () => {
    expect(titledMarks('<g><path aria-label="a &lt; b" role="graphics-symbol" d="M0"/><path d="M1"/><rect role="graphics-symbol" aria-label="r"></rect></g>')).toBe(
      '<g><path aria-label="a &lt; b" role="graphics-symbol" d="M0"><title>a &lt; b</title></path><path d="M1"/><rect role="graphics-symbol" aria-label="r"><title>r</title></rect></g>',
    );
  });

  it('lays text out with Helvetica widths, and gives vega its own measure back afterwards', async () => {
    expect(textWidth('survival', 12)).toBeCloseTo(((500 + 556 + 333 + 500 + 222 + 500 + 556 + 222) / 1000) * 12 * 1.06, 6);
    expect(textWidth('ab', 10, 'bold')).toBeGreaterThan(textWidth('ab', 10));
    const metrics = (vega as unknown as { textMetrics: { width: unknown; estimateWidth: unknown } }).textMetrics;
    const before = metrics.width;
    const title = 'a title long enough that vega’s 0.8 em estimate would widen the canvas well past it';
    const { svg } = await renderSvg({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', title, data: { values: [{ a: 1 }] }, mark: 'point', encoding: { x: { field: 'a', type: 'quantitative' } }, width: 50, height: 50 } as never);
    expect(metrics.width).toBe(before);
    const width = Number(/<svg[^>]*\swidth="([0-9.]+)"/.exec(svg)![1]);
    // Bold 13 px title: Helvetica's width plus the padding, far under 0.8 × 84 characters × 13 px ≈ 870 px.
    expect(width).toBeLessThan(textWidth(title, 13, 'bold') + 40);
  });
});
