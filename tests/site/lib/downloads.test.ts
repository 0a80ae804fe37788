import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFiles } from '../../../harness/index.js';
import { CELL_COLUMNS, CLAIM_COLUMNS, CsvFieldError, FORMULA_GUARD, cellsCsv, chartDownloads, claimsCsv, csv, csvField } from '../../../site/src/lib/downloads.js';
import { parseCsv } from '../../support/csv.js';

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
const load = async (file: string) => runFiles.Report.parse(JSON.parse(await readFile(path.join(REPO, file), 'utf8')));
const golden = await load('tests/harness/report/__snapshots__/golden/report.json');
const example = await load('runs/example-sim/report/report.json');

/** A CSV as records keyed by its header. */
function records(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  return rows.map((row) => Object.fromEntries(header!.map((h, i) => [h, row[i]!])));
}

describe('the CSV fields', () => {
  it('quotes a field holding a comma, a quote, a CR or an LF (RFC 4180), and nothing else', () => {
    expect(csvField('plain text')).toBe('plain text');
    expect(csvField('a, b')).toBe('"a, b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
  });

  it('prefixes text that a spreadsheet would run as a formula with a single quote', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvField(`${start}SUM(A1:A9)`).startsWith(`${FORMULA_GUARD}${start}`) || csvField(`${start}SUM(A1:A9)`).startsWith(`"${FORMULA_GUARD}${start}`)).toBe(true);
    expect(csvField('=HYPERLINK("http://x","a, b")')).toBe(`"${FORMULA_GUARD}=HYPERLINK(""http://x"",""a, b"")"`);
    // Only the start counts: a formula character inside text is text.
    expect(csvField('a=b')).toBe('a=b');
  });

  it('writes null empty, booleans as true/false, numbers as they are, and refuses a figure that is not finite', () => {
    expect([csvField(null), csvField(true), csvField(false), csvField(0.948717948718), csvField(0)]).toEqual(['', 'true', 'false', '0.948717948718', '0']);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) expect(() => csvField(bad)).toThrow(CsvFieldError);
  });

  it('ends every record with CRLF and refuses a row that does not fit its header', () => {
    expect(csv(['a', 'b'], [[1, 'x,y']])).toBe('a,b\r\n1,"x,y"\r\n');
    expect(() => csv(['a', 'b'], [[1]])).toThrow(CsvFieldError);
  });

  it('survives hostile text: what a parser reads back is the text, guarded where it began like a formula', () => {
    const hostile = ['=cmd|\' /C calc\'!A0', '@SUM(1)', '-2+3', 'a "quoted", comma\r\nand a new line', '<b>|busy|</b> \u001b[2J'];
    const text = csv(['text'], hostile.map((h) => [h]));
    const back = parseCsv(text).slice(1).map((r) => r[0]);
    expect(back).toEqual(hostile.map((h) => (/^[=+\-@\t\r]/.test(h) ? `${FORMULA_GUARD}${h}` : h)));
    expect(parseCsv(text).every((r) => r.length === 1)).toBe(true);
  });
});

describe('cells.csv and claims.csv', () => {
  it('has one row per report.cells entry, each carrying the simulated flag and the run\'s pins', () => {
    for (const report of [example, golden]) {
      const rows = records(cellsCsv(report));
      expect(parseCsv(cellsCsv(report))[0]).toEqual([...CELL_COLUMNS]);
      expect(rows.length).toBe(report.cells.length);
      expect(rows.map((r) => r.cell)).toEqual(report.cells.map((c) => c.id));
      for (const row of rows) {
        expect(row.simulated).toBe(report.simulated === null ? 'false' : 'true');
        expect([row.run, row.commit, row.commit_dirty, row.manifest_sha256, row.harness_version]).toEqual([report.sweep.run, report.sweep.code.commit ?? '', String(report.sweep.code.dirty), report.sweep.manifestSha256, report.sweep.harnessVersion]);
      }
      // The figures read back equal report.json's.
      report.cells.forEach((c, i) => {
        expect(rows[i]!.survival === '' ? null : Number(rows[i]!.survival)).toBe(c.result?.survival ?? null);
        expect(Number(rows[i]!.sessions)).toBe(c.spend.sessions);
        expect(rows[i]!.status).toBe(c.status);
      });
    }
  });

  it('keeps an unavailable cell\'s hostile reason as text in one field', () => {
    const rows = records(cellsCsv(golden));
    const cell = golden.cells.find((c) => c.status === 'unavailable')!;
    expect(cell.reason).toContain('<b>|busy|</b>');
    expect(rows.find((r) => r.cell === cell.id)!.reason).toBe(cell.reason);
    const hostile = { ...golden, cells: golden.cells.map((c) => (c.id === cell.id ? { ...c, reason: '=HYPERLINK("http://evil","x"),\nsecond line' } : c)) };
    const back = records(cellsCsv(hostile)).find((r) => r.cell === cell.id)!;
    expect(back.reason).toBe(`${FORMULA_GUARD}=HYPERLINK("http://evil","x"),\nsecond line`);
    expect(records(cellsCsv(hostile)).length).toBe(golden.cells.length);
  });

  it('has one row per counted claim of report.claims: killed ones are those that did not survive', () => {
    for (const report of [example, golden]) {
      const rows = records(claimsCsv(report));
      expect(parseCsv(claimsCsv(report))[0]).toEqual([...CLAIM_COLUMNS]);
      expect(rows.length).toBe(report.claims.length);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.filter((r) => r.survived === 'false').length).toBe(report.claims.filter((c) => !c.survived).length);
      expect(rows.map((r) => [r.cell, r.leaf, Number(r.level), r.requirement, r.survived === 'true', r.died_at || null, r.last_passed || null, r.in_figures === 'true'])).toEqual(
        report.claims.map((c) => [c.cellId, c.leaf, c.level, c.requirement, c.survived, c.diedAt, c.lastPassed, c.inFigures]),
      );
      expect(new Set(rows.map((r) => r.simulated))).toEqual(new Set([report.simulated === null ? 'false' : 'true']));
    }
    expect(example.claims.filter((c) => !c.survived).length).toBeGreaterThan(0);
  });
});

describe('the chart downloads', () => {
  it('offers each chart\'s staged spec and drawing, and leaves out what was not staged', () => {
    const names = example.charts.map((c) => c.name);
    const all = chartDownloads(example.charts, new Set(names), new Set(names));
    expect(all.map((c) => [c.spec, c.svg])).toEqual(example.charts.map((c) => [c.spec, c.svg]));
    // The golden run is staged without its specs: the drawings only.
    expect(chartDownloads(example.charts, new Set(names), new Set()).every((c) => c.spec === null && c.svg !== null)).toBe(true);
    expect(chartDownloads(example.charts, new Set(['cells']), new Set())).toEqual([{ title: example.charts.find((c) => c.name === 'cells')!.title, spec: null, svg: 'charts/cells.svg' }]);
  });
});
