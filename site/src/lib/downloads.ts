import type { Report } from '../../../harness/run-file-schemas.js';
import { isSimulated } from './headline.js';

/**
 * The CSVs a reviewer takes away from a sweep page: one row per cell of report.cells, one row
 * per counted claim of report.claims. Pure functions of report.json.
 *
 * Every row begins with the run's pins (simulated, run, commit, dirty, manifest sha256, harness
 * version), so a row copied out of its file still says where it came from and a simulated row
 * cannot pass for real data. RFC 4180: comma-separated, CRLF line ends, a field holding a comma,
 * a quote, a CR or an LF is quoted with its quotes doubled. Text that a spreadsheet would run as
 * a formula (it begins with =, +, -, @, a tab or a CR) is prefixed with a single quote
 * (FORMULA_GUARD); numbers are written as they are (none of the figures here is negative).
 */

export type Field = string | number | boolean | null;

/** Put before text that begins like a formula, so a spreadsheet shows it as text. */
export const FORMULA_GUARD = "'";
const FORMULA_START = /^[=+\-@\t\r]/;

/** A figure is finite, or this is a bug upstream: report.json refuses NaN and infinities. */
export class CsvFieldError extends Error {
  readonly code = 'csv_field_invalid';
}

/** One field as RFC 4180 text: null is empty, booleans `true`/`false`, text guarded against formulas and quoted when it must be. */
export function csvField(value: Field): string {
  if (value === null) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new CsvFieldError(`a CSV figure is ${value}; figures must be finite (this is a bug)`);
    return String(value);
  }
  const text = FORMULA_START.test(value) ? `${FORMULA_GUARD}${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A whole CSV: the header, then the rows, each line ended by CRLF. */
export function csv(header: readonly string[], rows: ReadonlyArray<readonly Field[]>): string {
  for (const [i, row] of rows.entries()) if (row.length !== header.length) throw new CsvFieldError(`CSV row ${i + 1} has ${row.length} fields for ${header.length} columns (this is a bug)`);
  return [header, ...rows].map((row) => `${row.map(csvField).join(',')}\r\n`).join('');
}

const PIN_COLUMNS = ['simulated', 'run', 'commit', 'commit_dirty', 'manifest_sha256', 'harness_version'] as const;

function pins(report: Report): Field[] {
  const s = report.sweep;
  return [isSimulated(report), s.run, s.code.commit, s.code.dirty, s.manifestSha256, s.harnessVersion];
}

export const CELL_COLUMNS = [
  ...PIN_COLUMNS,
  'cell', 'cap', 'arm', 'repetition', 'status', 'reason',
  'claimed', 'surviving', 'survival', 'deepest_level', 'spec_passing', 'spec_total', 'tests_carried', 'leaves', 'leaves_not_delivered', 'claims_dropped', 'escalations',
  'sessions', 'tokens_input', 'tokens_cached', 'tokens_output', 'cost_usd', 'unpriced_sessions',
] as const;

/** One row per entry of report.cells, measured or not (an unmeasured cell's figures are empty, its spend is still counted). */
export function cellsCsv(report: Report): string {
  const pinned = pins(report);
  const rows = report.cells.map((c) => {
    const x = c.result;
    const t = c.spend.tokens;
    return [
      ...pinned,
      c.id, c.cap, c.arm, c.repetition, c.status, c.reason,
      x?.claimed ?? null, x?.surviving ?? null, x?.survival ?? null, x?.deepestLevel ?? null, x?.specPassing ?? null, x?.specTotal ?? null, x?.testsCarried ?? null,
      x?.leaves ?? null, x?.leavesNotDelivered ?? null, x?.claimsDropped ?? null, x?.escalations ?? null,
      c.spend.sessions, t.input, t.cached, t.output, c.spend.costUsd, c.spend.unpricedSessions,
    ];
  });
  return csv(CELL_COLUMNS, rows);
}

export const CLAIM_COLUMNS = [...PIN_COLUMNS, 'cell', 'cap', 'arm', 'repetition', 'leaf', 'level', 'requirement', 'survived', 'died_at', 'last_passed', 'in_figures'] as const;

/** One row per entry of report.claims: every counted claim, survived or killed. */
export function claimsCsv(report: Report): string {
  const pinned = pins(report);
  return csv(CLAIM_COLUMNS, report.claims.map((c) => [...pinned, c.cellId, c.cap, c.arm, c.repetition, c.leaf, c.level, c.requirement, c.survived, c.diedAt, c.lastPassed, c.inFigures]));
}

export interface ChartDownload {
  title: string;
  /** Relative to the sweep page (`charts/NAME.vl.json`); null when the spec was not staged. */
  spec: string | null;
  /** Relative to the sweep page (`charts/NAME.svg`); null when the drawing was not staged. */
  svg: string | null;
}

/**
 * Each chart of report.json with the files of it the site publishes: its vega-lite spec (by
 * the spec file's name) and its SVG (by the chart's name, as the SVG endpoint serves it).
 * A chart with neither is left out.
 */
export function chartDownloads(charts: Report['charts'], svgs: ReadonlySet<string>, specs: ReadonlySet<string>): ChartDownload[] {
  return charts.flatMap((c) => {
    const specName = /([^/]+)\.vl\.json$/.exec(c.spec)?.[1];
    const spec = specName && specs.has(specName) ? `charts/${specName}.vl.json` : null;
    const svg = svgs.has(c.name) ? `charts/${c.name}.svg` : null;
    return spec || svg ? [{ title: c.title, spec, svg }] : [];
  });
}
