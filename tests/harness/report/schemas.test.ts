import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CellMeasurement, Report } from '../../../harness/index.js';
import { goldenEvents } from './golden-fixture.js';

/**
 * The results site reads report.json and the journal's measured cells; the schemas it needs come
 * from one module whose whole import graph is data only: zod and pure arithmetic, no files, no
 * engine, no Docker, no network.
 */

const ROOT = path.resolve(import.meta.dirname, '../../..');
const ENTRY = 'harness/report/schemas.ts';
/** Packages a pure module may reach: zod, and the numeric libraries the stats use. */
const ALLOWED_PACKAGES = new Set(['zod', 'jstat', 'simple-statistics']);

async function importGraph(entry: string): Promise<{ files: string[]; packages: Set<string> }> {
  const files: string[] = [];
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (files.includes(file)) continue;
    files.push(file);
    const text = await readFile(path.join(ROOT, file), 'utf8');
    // Type-only imports vanish at run time, so they cannot bring IO in.
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(?!type\s)[^'"]*?from\s+['"]([^'"]+)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) queue.push(path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts'));
      else packages.add(spec);
    }
  }
  return { files, packages };
}

describe('the run-file schemas', () => {
  it('come from a module whose import graph holds no IO: no node built-in, no engine, only zod and arithmetic', async () => {
    const { files, packages } = await importGraph(ENTRY);
    expect(files).toContain('harness/report/report-schema.ts');
    expect(files).toContain('harness/journal/cell-measurement.ts');
    expect(files.filter((f) => f.startsWith('engine/'))).toEqual([]);
    expect([...packages].filter((p) => !ALLOWED_PACKAGES.has(p))).toEqual([]);
  });

  it('read what the harness writes: a journal’s measured cell, and report.json', async () => {
    const measured = goldenEvents().flatMap((e) => (e.type === 'cell_finished' && e.outcome.status === 'measured' ? [e.outcome.result] : []));
    expect(measured.map((m) => CellMeasurement.safeParse(JSON.parse(JSON.stringify(m))).success)).toEqual(measured.map(() => true));
    const written = await readFile(path.join(import.meta.dirname, '__snapshots__', 'golden', 'report.json'), 'utf8');
    expect(Report.safeParse(JSON.parse(written)).success).toBe(true);
  });
});
