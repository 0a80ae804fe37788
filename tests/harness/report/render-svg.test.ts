import { describe, expect, it } from 'vitest';
import { renderSvg } from '../../../harness/index.js';

/** Server-side SVG: the same spec gives the same bytes every time, warnings are reported, nothing is fetched. */

const clipped = {
  $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
  data: { values: [{ x: 1, y: 0.5 }, { x: 2, y: 1.4 }] },
  mark: { type: 'line', clip: true },
  encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative', scale: { domain: [0, 1] } } },
} as const;

describe('renderSvg', () => {
  it('gives identical bytes for the same spec, clip-path ids included (vega numbers them globally)', async () => {
    const first = await renderSvg(clipped as never);
    const second = await renderSvg(clipped as never);
    expect(first.svg).toMatch(/clip-path="url\(#clip1\)"/);
    expect(second.svg).toBe(first.svg);
    expect(first.warnings).toEqual([]);
  });

  it('reports what vega-lite warns about instead of printing it', async () => {
    const rendered = await renderSvg({ ...clipped, encoding: { ...clipped.encoding, color: { field: 'missing', type: 'quantitative', scale: { type: 'log', domain: [0, 1] } } } } as never);
    expect(rendered.warnings.length).toBeGreaterThan(0);
  });
});
