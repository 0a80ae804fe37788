import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { runPaths, type Report } from '../../../harness/run-files.js';
import { RunFileInvalidError } from './run-file-read.js';

/**
 * The report's vega-lite specs (`report/charts/NAME.vl.json`) that were staged, published as
 * downloads byte for byte. A spec is data for a reader's own tools, never drawn by the site, so
 * it is checked only to be what the report writes: a JSON object naming a vega-lite schema.
 * A run staged without its specs (an older run, a report copied without them) has none.
 */

export interface SpecFile {
  /** The file's name without `.vl.json`: the download's name (`charts/NAME.vl.json`). */
  name: string;
  /** Path of the staged spec, relative to the data folder. */
  file: string;
}

const VEGA_LITE = /^https:\/\/vega\.github\.io\/schema\/vega-lite\/v[0-9]+(\.[0-9]+)*\.json$/;
const SPEC_NAME = /^charts\/[A-Za-z0-9][A-Za-z0-9_-]*\.vl\.json$/;

/** Refuses a spec that is not a JSON object naming a vega-lite schema. */
export function assertVegaLiteSpec(text: string, shownAs: string): void {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RunFileInvalidError(`${shownAs}: not valid JSON`);
  }
  const schema = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>).$schema : undefined;
  if (typeof schema !== 'string' || !VEGA_LITE.test(schema)) throw new RunFileInvalidError(`${shownAs}: not a vega-lite spec (its $schema names no vega-lite schema); re-run harness report`);
}

/** The staged specs of the run `name` that report.json names, each checked. */
export async function stagedSpecs(dataDir: string, name: string, report: Report): Promise<SpecFile[]> {
  const dir = runPaths(path.join(dataDir, 'runs', name)).report;
  const out: SpecFile[] = [];
  for (const chart of report.charts) {
    if (!SPEC_NAME.test(chart.spec)) continue;
    const file = path.join(dir, chart.spec);
    if (!(await stat(file).then((s) => s.isFile(), () => false))) continue;
    assertVegaLiteSpec(await readFile(file, 'utf8'), `runs/${name}/report/${chart.spec}`);
    out.push({ name: path.basename(chart.spec, '.vl.json'), file: path.relative(dataDir, file) });
  }
  return out;
}
