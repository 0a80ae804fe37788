import { execFile } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { formatOf, loadSpecOracle, oracleDir, type OracleCase } from '../../../harness/index.js';
import { parseCsv } from '../../support/csv.js';

const run = promisify(execFile);
const DATA = path.join(oracleDir('sqlcsv'), 'data');
type Cell = string | number | null;

/** Column type by the spec's rule: integer, decimal (real) or text; an empty field is NULL. */
function columnType(values: string[]): 'INTEGER' | 'REAL' | 'TEXT' {
  const present = values.filter((v) => v !== '');
  if (present.every((v) => /^-?\d+$/.test(v))) return 'INTEGER';
  if (present.every((v) => /^-?(\d+\.?\d*|\.\d+)$/.test(v))) return 'REAL';
  return 'TEXT';
}

// The sqlite3 shell drops a carriage return at the end of each script line, so one inside a
// value is spelled out.
const sqlString = (v: string) => `'${v.replace(/'/g, "''").replace(/\r/g, "' || char(13) || '")}'`;

/** A SQLite script that loads a data set with the spec's typing. */
async function loadScript(dataset: string): Promise<string> {
  const dir = path.join(DATA, dataset);
  const out: string[] = [];
  // Spec 2.1: only regular files directly inside, named *.csv in lower case, are tables.
  for (const file of (await readdir(dir, { withFileTypes: true })).filter((f) => f.isFile() && f.name.endsWith('.csv')).map((f) => f.name)) {
    // Spec 2.2: an empty line is not a record; a file with no record has no columns, and
    // SQLite has no table without columns, so its cases are skipped.
    const [header, ...rows] = parseCsv(await readFile(path.join(dir, file), 'utf8')).filter((r) => !(r.length === 1 && r[0] === ''));
    if (!header) continue;
    const types = header!.map((_, i) => columnType(rows.map((r) => r[i] ?? '')));
    const table = `"${file.replace(/\.csv$/, '')}"`;
    out.push(`CREATE TABLE ${table} (${header!.map((h, i) => `"${h}" ${types[i]}`).join(', ')});`);
    for (const r of rows) {
      out.push(`INSERT INTO ${table} VALUES (${r.map((v, i) => (v === '' ? 'NULL' : types[i] === 'TEXT' ? sqlString(v) : v)).join(', ')});`);
    }
  }
  return out.join('\n');
}

const normal = (v: unknown): Cell => {
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'number') return v;
  const s = String(v);
  return /^-?(\d+\.?\d*|\.\d+)(e-?\d+)?$/.test(s) ? Number(s) : s;
};

function sqlOf(c: OracleCase): string {
  if (c.stdin !== undefined) return c.stdin;
  const positional = c.args.filter((a, i) => !a.startsWith('-') && !['--data', '--format'].includes(c.args[i - 1] ?? ''));
  return positional.at(-1)!;
}


/** Expected header (when the format shows one) and rows, from the case in its own output format. */
function expected(c: OracleCase): { header: Cell[] | null; rows: Cell[][]; ordered: boolean } {
  if (c.expect.result) return { header: c.expect.result.header ?? null, rows: c.expect.result.rows.map((r) => r.map(normal)), ordered: c.expect.result.ordered ?? true };
  const text = c.expect.stdout!;
  const fmt = formatOf(c.args);
  if (fmt === 'csv') {
    const [header, ...rows] = parseCsv(text).map((r) => r.map(normal));
    return { header: header!, rows, ordered: true };
  }
  if (fmt === 'json') {
    const data = JSON.parse(text) as Array<Record<string, unknown>>;
    return { header: null, rows: data.map((o) => Object.values(o).map(normal)), ordered: true };
  }
  const lines = text.split('\n').filter((l) => l !== '');
  const cells = (l: string) => l.split(' | ').map((cell) => normal(cell.trim()));
  return { header: cells(lines[0]!), rows: lines.slice(2).map(cells), ordered: true };
}

/**
 * SQLite's rows for each case, one sqlite3 process per data set (the cases of a data set run in
 * turn in one script, each announced by a marker line), so hundreds of cases cost a few processes.
 */
async function sqliteAll(cases: readonly OracleCase[]): Promise<Map<OracleCase, Cell[][]>> {
  const out = new Map<OracleCase, Cell[][]>();
  for (const data of [...new Set(cases.map((c) => c.data!))]) {
    const mine = cases.filter((c) => c.data === data);
    const queries = mine.map((c, i) => `.print @@case ${i}\n${sqlOf(c).trim().replace(/;?$/, ';')}`).join('\n');
    const child = run('sqlite3', [':memory:'], { maxBuffer: 1 << 24 });
    child.child.stdin!.end(`${await loadScript(data)}\n.headers on\n.mode csv\n${queries}\n`);
    const parts = (await child).stdout.split(/^@@case \d+\n/m).slice(1);
    expect(parts.length, data).toBe(mine.length);
    mine.forEach((c, i) => out.set(c, parseCsv(parts[i]!).map((r) => r.map(normal))));
  }
  return out;
}

const sameCell = (a: Cell, b: Cell) => (typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) < 1e-9 : a === b);

describe('oracle cross-check against SQLite', () => {
  it('agrees with sqlite3 on every case marked `same`, and every other case says why it differs', async () => {
    const { oracle } = await loadSpecOracle('sqlcsv');
    const same = oracle.cases.filter((c) => c.sqlite === 'same');
    expect(same.length).toBeGreaterThan(60);
    const disagreements: string[] = [];
    const rows = await sqliteAll(same);
    for (const c of same) {
      const want = expected(c);
      const got = rows.get(c)!;
      // The sqlite3 shell prints no header for an empty result.
      const [w, g] = [want.rows, got.slice(1)];
      if (want.header && got.length && JSON.stringify(want.header) !== JSON.stringify(got[0])) {
        disagreements.push(`${c.id}: header ${JSON.stringify(want.header)} vs sqlite ${JSON.stringify(got[0])}`);
      }
      const key = (r: Cell[]) => JSON.stringify(r.map((v) => (typeof v === 'number' ? Math.round(v * 1e9) / 1e9 : v)));
      const [ws, gs] = want.ordered ? [w.map(key), g.map(key)] : [w.map(key).sort(), g.map(key).sort()];
      if (ws.length !== gs.length || ws.some((row, i) => row !== gs[i] && !JSON.parse(row).every((v: Cell, j: number) => sameCell(v, JSON.parse(gs[i]!)[j])))) {
        disagreements.push(`${c.id}: expected ${ws.slice(0, 3).join(' ')} ... sqlite ${gs.slice(0, 3).join(' ')}`);
      }
    }
    expect(disagreements).toEqual([]);
    // Every case of this oracle says whether SQLite agrees (the schema lets a task without data sets leave it out).
    for (const c of oracle.cases) {
      expect(c.sqlite, c.id).toBeDefined();
      if (c.sqlite !== 'same') expect(Object.values(c.sqlite!)[0]!.length).toBeGreaterThan(5);
    }
  });
});
