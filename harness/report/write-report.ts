import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFECTS_FILE, corpusDir, defectModelOf, loadDefectTable, type DefectModel } from './planted-truth.js';
import { digestFolder } from '../journal/folder-digest.js';
import { loadRequirements } from '../grading/spec-requirements.js';
import { REPO_ROOT } from '../paths.js';
import { licenceNotice } from '../task/brief-sources.js';
import { loadTaskDefinition } from '../task/task-definition.js';
import { isSimulatedRun } from '../providers/sweep-roster.js';
import { runPaths } from '../journal/run-folder.js';
import { buildReport } from './build-report.js';
import { firstCallCacheShare } from '../journal/cache-share.js';
import { paidFromTranscripts } from '../journal/paid.js';
import { chartSpecs } from './chart-list.js';
import { readRecordedRun, type RecordedRun } from './read-run.js';
import { renderMarkdown } from './report-markdown.js';
import type { Report } from './report-schema.js';
import { renderSummary } from './report-summary.js';
import { renderSvg } from './render-svg.js';

/**
 * The IO shell of `harness report`: read the run folder, build the report (pure), render the
 * charts, and replace `<run>/report/` whole. The new report is written beside the old one and
 * swapped in, so a crash mid-write leaves the previous report, never half of each.
 */

export interface WriteReportOptions {
  /** The run folder as the user wrote it, for messages and the summary. Default: the path given. */
  shownAs?: string;
  /** The sim corpus folder whose defect table gives a simulated sweep its planted truth. Default: the pinned spec's task's, harness/sim/corpus/<task>/. */
  simCorpusDir?: string;
}

export interface WrittenReport {
  report: Report;
  /** Files written, relative to the report folder. */
  files: string[];
  /** The terminal summary: the per-level table and the paths. */
  summary: string;
  /** Warnings vega-lite or vega raised while rendering (a chart spec bug); empty when clean. */
  warnings: string[];
}

/**
 * JSON with every number checked finite (a NaN would silently become null, which reads as "no
 * figure") and float noise rounded off at 12 significant digits (0.30000000000000004 reads 0.3).
 */
export function reportJson(value: unknown): string {
  return `${JSON.stringify(
    value,
    (key, v) => {
      if (typeof v !== 'number') return v;
      if (!Number.isFinite(v)) throw new RangeError(`report: ${key} is ${v}; figures must be finite (this is a bug)`);
      return Number.isInteger(v) ? v : Number(v.toPrecision(12));
    },
    2,
  )}\n`;
}

/**
 * The defect model behind a simulated sweep's truth: the corpus table, but only while the corpus
 * is the one the journal pinned; otherwise there is no truth to show rather than a wrong one.
 */
async function defectsFor(run: RecordedRun, corpusOverride: string | undefined): Promise<{ defects: DefectModel; requirements: string[] } | { noTruthBecause: string } | undefined> {
  const { simCorpus, spec } = run.header.pins;
  // The one SIMULATED rule, however the sim was served (in-process, or over HTTP).
  if (!isSimulatedRun(run.header.pins)) return undefined;
  // The corpus of the pinned spec's task (its folder's name), unless the caller names another.
  const corpus = corpusOverride ?? corpusDir(path.basename(spec.path));
  const now = await digestFolder(corpus);
  if (JSON.stringify(now) !== JSON.stringify(simCorpus.content)) return { noTruthBecause: `the sim corpus (${simCorpus.path}) is not the one the journal pinned, so its defect table may not be the one the sweep drew from` };
  // The truth sums over the requirements of the spec the sweep was graded against, never a list of its own.
  const specDir = path.resolve(REPO_ROOT, spec.path);
  const specNow = await digestFolder(specDir).catch(() => null);
  if (JSON.stringify(specNow) !== JSON.stringify(spec.content)) return { noTruthBecause: `the spec (${spec.path}) is not the one the journal pinned, so its requirements may not be the ones the sweep was graded on` };
  const requirements = (await loadRequirements(specDir)).map((r) => r.id);
  return { defects: defectModelOf(await loadDefectTable(path.join(corpus, DEFECTS_FILE))), requirements };
}

/**
 * The licence notices of the texts the run's brief carried beside SPEC.md, read from the task.yaml
 * of the spec folder the journal pins. Fails closed: a task.yaml that cannot be read stops the
 * report rather than publish transcripts that may carry others' text without its notice. A spec
 * folder changed since the run is still read (nothing else records which texts the brief
 * carried); the report's other figures say when it is not the one pinned.
 */
async function licenceNoticesOf(run: RecordedRun): Promise<string[]> {
  const task = await loadTaskDefinition(path.resolve(REPO_ROOT, run.header.pins.spec.path));
  return task.brief.sources.map(licenceNotice);
}

export async function writeReport(runDir: string, options: WriteReportOptions = {}): Promise<WrittenReport> {
  const shownAs = options.shownAs ?? runDir;
  const run = await readRecordedRun(runDir, shownAs);
  const truth = await defectsFor(run, options.simCorpusDir);
  // What was paid: the one definition (journal/paid.ts), priced by the roster the journal pinned.
  const roster = run.header.pins.roster;
  const paid = roster ? await paidFromTranscripts(runPaths(runDir).cells, roster) : undefined;
  const report = buildReport({ runName: run.name, events: run.events, manifest: run.manifest, ...truth, firstCallCache: await firstCallCacheShare(runDir), licenceNotices: await licenceNoticesOf(run), ...(paid ? { paid } : {}) });
  const files: Array<[string, string]> = [
    ['report.json', reportJson(report)],
    ['report.md', renderMarkdown(report)],
  ];
  const warnings: string[] = [];
  for (const { name, spec } of chartSpecs(report)) {
    // Rendered from the spec file's own text, so re-rendering NAME.vl.json gives NAME.svg.
    const text = reportJson(spec);
    const rendered = await renderSvg(JSON.parse(text) as typeof spec);
    warnings.push(...rendered.warnings.map((w) => `${name}: ${w}`));
    files.push([`charts/${name}.vl.json`, text], [`charts/${name}.svg`, rendered.svg]);
  }
  const target = runPaths(runDir).report;
  const fresh = `${target}.new-${process.pid}`;
  const old = `${target}.old-${process.pid}`;
  await rm(fresh, { recursive: true, force: true });
  await mkdir(path.join(fresh, 'charts'), { recursive: true });
  for (const [name, text] of files) await writeFile(path.join(fresh, name), text);
  await rename(target, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(fresh, target);
  await rm(old, { recursive: true, force: true });
  const names = files.map(([name]) => name);
  return { report, files: names, summary: renderSummary(report, { report: path.join(shownAs, 'report'), files: names }), warnings };
}
