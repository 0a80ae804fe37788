import { reproduceSteps, type ReproduceStep } from './reproduce-steps.js';
import { estimateText, percent, truthText, type Report, type RulingWord } from '../../../harness/run-files.js';

/**
 * The headline strip a reviewer reads first (top of the sweep page, and each index card): the
 * report's own headline (survival by achieved level, pooled over caps, each arm and the paired
 * difference) printed by the report's own formatter, the pre-registered ruling when there is
 * one, and how to reproduce the run. A pure function of report.json, small enough to sit in the
 * index entry of a run.
 */

/** The one rule of a SIMULATED run, as report.json carries it: `simulated` is set exactly when the pinned roster holds a simulated model (harness/report/build-report.ts). */
export function isSimulated(report: Pick<Report, 'simulated'>): boolean {
  return report.simulated !== null;
}

export interface HeadlineRow {
  level: number;
  /** As report.md prints them: `0.974 (1 pair, no interval)`, `+0.256 [0.101, 0.411] (8 pairs)`, `–` when absent. */
  gated: string;
  ungated: string;
  difference: string;
  /** SIMULATED runs: the planted gated / ungated / difference; null for a real run. */
  planted: string | null;
}

export interface HeadlineRuling {
  registration: 'pre-registered' | 'not pre-registered';
  why: string | null;
  comparisons: Array<{ comparison: string; role: 'primary' | 'secondary'; ruling: RulingWord }>;
}

export interface Reproduce {
  /** The command that records the sweep again from its manifest. */
  command: string;
  manifest: string;
  commit: string | null;
  /** The commit had uncommitted changes when it recorded (so the commit alone does not reproduce it); null: unknown. */
  dirty: boolean | null;
  manifestSha256: string;
  harnessVersion: string;
  executor: string;
  reviewer: string;
  /** Every step from a fresh machine (reproduce-steps.ts). */
  steps: ReproduceStep[];
  /** The repository address package.json declares; null when it declares none. */
  repository: string | null;
}

export interface Headline {
  /** `95%`: the confidence of every interval. */
  confidence: string;
  rows: HeadlineRow[];
  ruling: HeadlineRuling | null;
  reproduce: Reproduce;
}

/** A pooled figure's pairs: the sum over its strata, as report.md counts them. */
const pooledPairs = (f: { strata: ReadonlyArray<{ pairs: number }> }) => f.strata.reduce((n, s) => n + s.pairs, 0);

function rows(report: Report): HeadlineRow[] {
  const simulated = isSimulated(report);
  return report.survival.pooled.map((row) => ({
    level: row.level,
    gated: row.gated ? estimateText(row.gated, pooledPairs(row.gated)) : '–',
    ungated: row.ungated ? estimateText(row.ungated, pooledPairs(row.ungated)) : '–',
    difference: row.difference ? estimateText(row.difference, pooledPairs(row.difference), true) : '–',
    planted: simulated ? `${truthText(row.gated?.truth ?? null)} / ${truthText(row.ungated?.truth ?? null)} / ${truthText(row.difference?.truth ?? null, true)}` : null,
  }));
}

function ruling(report: Report): HeadlineRuling | null {
  const r = report.ruling;
  if (!r) return null;
  return { registration: r.registration, why: r.why, comparisons: r.comparisons.map((c) => ({ comparison: c.comparison, role: c.role, ruling: c.ruling })) };
}

const modelText = (p: Report['design']['executor']) => `${p.realModel} (${p.provider}, family ${p.family ?? 'undeclared'})`;

function reproduce(report: Report, repository: string | null): Reproduce {
  // The manifest schema keeps a sweep's name to letters, digits, ".", "_" and "-", the name its
  // file carries under manifests/; the sha256 beside it says whether a file is that manifest.
  const manifest = `manifests/${report.sweep.name}.yaml`;
  return {
    command: `npm run harness -- record ${manifest}`,
    manifest,
    commit: report.sweep.code.commit,
    dirty: report.sweep.code.dirty,
    manifestSha256: report.sweep.manifestSha256,
    harnessVersion: report.sweep.harnessVersion,
    executor: modelText(report.design.executor),
    reviewer: modelText(report.design.reviewer),
    steps: reproduceSteps({ manifest, commit: report.sweep.code.commit, run: report.sweep.run, simulated: isSimulated(report) }, repository),
    repository,
  };
}

/** The strip of a run; `repository`: the clone address package.json declares (make_site.sh reads it), null when none. */
export function headline(report: Report, repository: string | null = null): Headline {
  return { confidence: percent(report.survival.confidence), rows: rows(report), ruling: ruling(report), reproduce: reproduce(report, repository) };
}

/**
 * The rendered report split after its title (the first `</h1>`), so the strip sits right under
 * the title, above the report's first screen of words; all of it after the title when there is none.
 */
export function splitAfterTitle(html: string): { title: string; rest: string } {
  const end = html.indexOf('</h1>');
  if (end === -1) return { title: '', rest: html };
  return { title: html.slice(0, end + 5), rest: html.slice(end + 5) };
}
