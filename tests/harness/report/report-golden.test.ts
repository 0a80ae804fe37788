import { cp, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeReport, type WrittenReport } from '../../../harness/index.js';
import { GOLDEN_MANIFEST_YAML, goldenEvents } from './golden-fixture.js';
import { writeRun } from './run-fixture.js';

/**
 * The golden report: a small journal fixture (golden-fixture.ts) gives report.json, report.md
 * and every chart's spec and SVG, each checked against a committed snapshot under
 * __snapshots__/golden/. Rebuilding gives identical bytes, wherever the run folder lives.
 */

const SNAPSHOTS = path.join(import.meta.dirname, '__snapshots__', 'golden');
const RUN = 'golden-20260102T030000Z';

async function files(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const name of ['report.json', 'report.md', ...(await readdir(path.join(dir, 'charts'))).map((n) => `charts/${n}`)].sort()) {
    out.set(name, await readFile(path.join(dir, name), 'utf8'));
  }
  return out;
}

let runDir: string;
let written: WrittenReport;
let first: Map<string, string>;

beforeAll(async () => {
  runDir = await writeRun(path.join(await mkdtemp(path.join(tmpdir(), 'rdh-golden-')), RUN), GOLDEN_MANIFEST_YAML, goldenEvents());
  written = await writeReport(runDir);
  first = await files(path.join(runDir, 'report'));
}, 60_000);

describe('the golden report', () => {
  it('writes report.json, report.md and six charts, each SVG beside its vega-lite spec, with no renderer warning', () => {
    expect([...first.keys()]).toEqual([
      'charts/achieved-depth.svg',
      'charts/achieved-depth.vl.json',
      'charts/cap-curve.svg',
      'charts/cap-curve.vl.json',
      'charts/cells.svg',
      'charts/cells.vl.json',
      'charts/cost.svg',
      'charts/cost.vl.json',
      'charts/paired-difference.svg',
      'charts/paired-difference.vl.json',
      'charts/survival-by-level.svg',
      'charts/survival-by-level.vl.json',
      'report.json',
      'report.md',
    ]);
    expect(written.warnings).toEqual([]);
  });

  it('matches the committed snapshots, file by file', async () => {
    for (const [name, text] of first) await expect(text).toMatchFileSnapshot(path.join(SNAPSHOTS, name));
  });

  it('gives identical bytes when rebuilt (replacing report/ whole), and from a copy of the run in another folder', async () => {
    // A chart an older harness wrote must not survive next to the new ones.
    await writeFile(path.join(runDir, 'report', 'charts', 'retired-chart.svg'), '<svg/>');
    await writeReport(runDir);
    expect(await files(path.join(runDir, 'report'))).toEqual(first);
    expect((await readdir(runDir)).filter((name) => name.startsWith('report'))).toEqual(['report']);
    const copy = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-golden-copy-')), RUN);
    await cp(runDir, copy, { recursive: true });
    await writeReport(copy);
    expect(await files(path.join(copy, 'report'))).toEqual(first);
  });

  it('prints no NaN or infinity anywhere, and never an absolute path of this machine', () => {
    for (const [name, text] of first) {
      expect({ name, nan: /\bNaN\b|Infinity/.test(text) }).toEqual({ name, nan: false });
      expect({ name, path: text.includes(runDir) }).toEqual({ name, path: false });
    }
  });

  it('escapes hostile text from the journal in report.md', () => {
    const md = first.get('report.md')!;
    expect(md).toContain('vendor/reviewer-model answered 503 &lt;b&gt;\\|busy\\|&lt;/b&gt; [2J three times');
    expect(md).not.toContain('\u001b');
  });
});
