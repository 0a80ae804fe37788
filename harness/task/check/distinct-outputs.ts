import { formatOf, type OracleCase } from '../../grading/oracle-cases.js';
import { propertyOf, type PropertyResult } from './check-result.js';
import { parseCsv } from './csv-records.js';

/**
 * Every requirement has two cases no single (exit status, stdout, stderr) can pass: then a
 * program that ignores its input, whatever constant it prints, fails one of them and earns
 * nothing. Static, from the cases' expectations. Pure.
 */
export function distinctOutputs(cases: readonly OracleCase[], requirementMap: Readonly<Record<string, readonly string[]>>): PropertyResult {
  const byId = new Map(cases.map((c) => [c.id, c]));
  const undecided = Object.entries(requirementMap)
    .filter(([, ids]) => {
      const mine = ids.map((id) => byId.get(id)).filter((c): c is OracleCase => c !== undefined);
      return !mine.some((a, i) => mine.slice(i + 1).some((b) => disjoint(a, b)));
    })
    .map(([req, ids]) => `${req}: ${ids.length} case(s), no two that a single output cannot pass both`);
  return propertyOf('distinct-outputs', undecided, `${Object.keys(requirementMap).length} requirements, each with two cases of distinct expected outputs`);
}

/**
 * What of an expected HTML output survives any normaliser the judge may use: whitespace
 * runs and the whitespace beside tags are dropped, so two outputs that differ only there count
 * as one (a normaliser may forgive it), and any other difference as two. Conservative: it may
 * call two distinct outputs one, never the reverse.
 */
function htmlShape(html: string): string {
  return html.replace(/\s+/g, ' ').replace(/ ?(<[^>]*>) ?/g, '$1').replace(/\s*\/>/g, '>').trim();
}

const stderrRule = (c: OracleCase) => c.expect.stderr ?? (c.expect.exit !== 0 ? 'nonempty' : 'any');
const key = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r.map((v) => (v === null ? '' : String(v)))));
type Result = NonNullable<OracleCase['expect']['result']>;

/** True when no (exit status, stdout, stderr) can pass both cases. */
export function disjoint(a: OracleCase, b: OracleCase): boolean {
  if (a.expect.exit !== b.expect.exit) return true;
  const rules = new Set([stderrRule(a), stderrRule(b)]);
  if (rules.has('empty') && rules.has('nonempty')) return true;
  const [ha, hb] = [a.expect.html, b.expect.html];
  if (ha !== undefined && hb !== undefined) return htmlShape(ha) !== htmlShape(hb);
  if (ha !== undefined || hb !== undefined) return false;
  const [sa, sb] = [a.expect.stdout, b.expect.stdout];
  if (sa !== undefined && sb !== undefined) return sa !== sb;
  const [ra, rb] = [a.expect.result, b.expect.result];
  if (sa !== undefined && rb) return !sameResultOfText(sa, formatOf(b.args), rb);
  if (sb !== undefined && ra) return !sameResultOfText(sb, formatOf(a.args), ra);
  if (ra && rb) {
    if (formatOf(a.args) !== formatOf(b.args)) {
      // A JSON result starts with '['; a csv header or first row that does not cannot be the same text.
      const csv = formatOf(a.args) === 'csv' ? ra : rb;
      const first = String((csv.header ?? csv.rows[0] ?? [''])[0] ?? '');
      return !first.startsWith('[');
    }
    return !sameResult(ra, rb);
  }
  return false;
}

/** The result a csv or json stdout shows, as the runner reads it (values as text). */
function resultOf(stdout: string, format: string): { header: string[]; rows: unknown[][] } | null {
  try {
    if (format === 'csv') {
      const [header = [], ...rows] = parseCsv(stdout);
      return { header, rows };
    }
    const data = JSON.parse(stdout) as Array<Record<string, unknown>>;
    return { header: data[0] ? Object.keys(data[0]) : [], rows: data.map((o) => Object.values(o)) };
  } catch {
    return null;
  }
}

function sameResult(a: Result, b: { header?: string[]; rows: unknown[][]; ordered?: boolean }): boolean {
  if (a.header && b.header && JSON.stringify(a.header) !== JSON.stringify(b.header)) return false;
  const [x, y] = [key(a.rows), key(b.rows)];
  const ordered = (a.ordered ?? true) && (b.ordered ?? true);
  return JSON.stringify(ordered ? x : x.sort()) === JSON.stringify(ordered ? y : y.sort());
}

function sameResultOfText(stdout: string, format: string, want: Result): boolean {
  const got = resultOf(stdout, format);
  return got !== null && sameResult(want, { ...got, ordered: want.ordered });
}
