import { chartSpecs, renderSvg, type Report } from '../../../harness/run-files.js';

/**
 * The cells chart of the report, drawn by the report's own code, every dot of a cell that has a
 * page linking to `cells/ID/` (a run published without a cell's folder has no page to link to).
 */
export async function linkedCellsChart(report: Report, cellPages: ReadonlySet<string>): Promise<string | null> {
  const entry = chartSpecs(report).find((c) => c.name === 'cells');
  if (!entry) return null;
  const spec = structuredClone(entry.spec) as unknown as Record<string, unknown>;
  let marks = 0;
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    const o = node as Record<string, unknown>;
    const mark = o.mark;
    const type = typeof mark === 'string' ? mark : (mark as { type?: string } | undefined)?.type;
    if ((type === 'point' || type === 'circle') && o.encoding && typeof o.encoding === 'object') {
      // A dot without a page gets no link (a bare field would link it to "undefined").
      (o.encoding as Record<string, unknown>).href = { condition: { test: 'isValid(datum.cellPage)', field: 'cellPage' }, value: null };
      marks += 1;
    }
    for (const value of Object.values(o)) visit(value);
  };
  visit(spec);
  const data = spec.data as { values?: Array<Record<string, unknown>> } | undefined;
  if (marks === 0 || !Array.isArray(data?.values)) throw new Error('the report\'s cells chart has no dot mark or inline data to link; the site and harness/report disagree on the chart (this is a bug)');
  for (const value of data.values) if (typeof value.id === 'string' && cellPages.has(value.id)) value.cellPage = `cells/${value.id}/`;
  const rendered = await renderSvg(spec as never);
  return rendered.svg;
}
