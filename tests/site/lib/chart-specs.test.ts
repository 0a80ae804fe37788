import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFiles } from '../../../harness/index.js';
import { assertVegaLiteSpec, stagedSpecs } from '../../../site/src/lib/chart-specs.js';
import { RunFileInvalidError } from '../../../site/src/lib/run-file-read.js';

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');

describe('the staged vega-lite specs', () => {
  it('admits what harness report writes, and refuses anything that is not a vega-lite spec', async () => {
    const spec = await readFile(path.join(REPO, 'runs', 'example-sim', 'report', 'charts', 'cells.vl.json'), 'utf8');
    expect(() => assertVegaLiteSpec(spec, 'cells.vl.json')).not.toThrow();
    for (const bad of ['not json', '[]', '{}', '{"$schema":"https://evil.example/vega-lite/v6.json"}', '{"$schema":"https://vega.github.io/schema/vega/v5.json"}']) {
      expect(() => assertVegaLiteSpec(bad, 'x.vl.json'), bad).toThrow(RunFileInvalidError);
    }
  });

  it('lists the specs report.json names that were staged, and skips the ones that were not', async () => {
    const data = await mkdtemp(path.join(tmpdir(), 'rdh-specs-'));
    try {
      const report = path.join(data, 'runs', 'r', 'report');
      await cp(path.join(REPO, 'runs', 'example-sim', 'report'), report, { recursive: true, filter: (f) => !f.endsWith('cost.vl.json') });
      const parsed = runFiles.Report.parse(JSON.parse(await readFile(path.join(report, 'report.json'), 'utf8')));
      const specs = await stagedSpecs(data, 'r', parsed);
      expect(specs.map((s) => s.name)).toEqual(parsed.charts.map((c) => path.basename(c.spec, '.vl.json')).filter((n) => n !== 'cost'));
      expect(specs[0]!.file).toBe(path.join('runs', 'r', 'report', parsed.charts[0]!.spec));
    } finally {
      await rm(data, { recursive: true, force: true });
    }
  });
});
