import { describe, expect, it } from 'vitest';
import { narrowSpec } from '../../../site/src/lib/narrow-chart.js';
import { BEYOND_CLAIMS_LEAD, reportHtml, stackTables } from '../../../site/src/lib/report-html.js';

/**
 * The sweep page's report body for a reviewer and a phone: a killed claim's merge is a link to
 * the attempt on its cell page, every table stacks (each cell labelled with its column), the
 * pooled headline table is printed once (in the strip), and a chart is drawn stacked with type
 * that stays legible when scaled to a phone.
 */

const killedTable = `<h2 id="decay">Decay merge by merge</h2>
<table>
<thead>
<tr>
<th>cell</th>
<th>leaf</th>
<th>requirement</th>
<th>killed at</th>
<th>last passed at</th>
</tr>
</thead>
<tbody>
<tr>
<td>cap2-rep1-ungated</td>
<td>root.1.1</td>
<td>R06</td>
<td>root.1</td>
<td>none</td>
</tr>
<tr>
<td>cap9-rep1-gated</td>
<td>root.1</td>
<td>R01</td>
<td>root</td>
<td>none</td>
</tr>
</tbody>
</table>`;

const options = { cellPages: new Set(['cap2-rep1-ungated']), charts: [], shownAs: 'report.json' };

describe('the sweep page\'s report body', () => {
  it('links each killed claim\'s merge to the attempt that stood on its cell page; a cell without a page keeps plain text', () => {
    const html = reportHtml(killedTable, { ...options, killedAt: (cell, node) => (cell === 'cap2-rep1-ungated' && node === 'root.1' ? 'node-root.1-merge-2' : null) });
    expect(html).toContain('<td data-label="killed at"><a href="cells/cap2-rep1-ungated/#node-root.1-merge-2" data-killed-at>root.1</a></td>');
    expect(html.match(/data-killed-at/g)).toHaveLength(1);
    expect(html).toContain('<td data-label="killed at">root</td>');
  });

  it('stacks every table on a phone: each cell carries its column\'s header', () => {
    const html = stackTables('<table><thead><tr><th>a &amp; b</th><th>c</th></tr></thead><tbody><tr id="row-x"><td>1</td><td align="right">2</td></tr></tbody></table>');
    expect(html).toBe('<table class="stack"><thead><tr><th>a &amp; b</th><th>c</th></tr></thead><tbody><tr id="row-x"><td data-label="a &amp;amp; b">1</td><td align="right" data-label="c">2</td></tr></tbody></table>');
  });

  it('prints the pooled headline once (the strip shows it), keeps its words and chart, and explains work beyond the claims', () => {
    const md = '<h2 id="h">Headline: survival by achieved level, pooled over caps</h2>\n<p>95% intervals.</p>\n<table><thead><tr><th>level</th></tr></thead><tbody><tr><td>1</td></tr></tbody></table>\n<h2 id="w">Work beyond the claims</h2>\n<p>detail</p>';
    const shown = reportHtml(md, { ...options, headlineShown: true });
    expect(shown).not.toContain('<table');
    expect(shown).not.toMatch(/<h2[^>]*>Headline/);
    expect(shown).toContain('<p>95% intervals.</p>');
    expect(shown).toContain(`<h2 id="w">Work beyond the claims</h2><p class="lead" data-beyond-claims-lead>${BEYOND_CLAIMS_LEAD}</p>`);
    expect(reportHtml(md, options)).toMatch(/<h2[^>]*>Headline/);
  });

  it('draws a chart for the page stacked, with 13 px type, leaving the report\'s spec as it was', () => {
    const spec = { hconcat: [{ width: 161, encoding: { x: { axis: { labelFontSize: 12 } } } }, { width: 88 }], config: { axis: { labelFontSize: 12, titleFontSize: 14 } }, data: { values: [{ fontSize: 1 }] } };
    const narrow = narrowSpec(spec);
    expect(narrow).toEqual({ vconcat: [{ width: 161, encoding: { x: { axis: { labelFontSize: 13 } } } }, { width: 88 }], config: { axis: { labelFontSize: 13, titleFontSize: 14 } }, data: { values: [{ fontSize: 1 }] } });
    expect(spec.hconcat).toHaveLength(2);
  });
});
