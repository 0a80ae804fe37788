import { hash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ARMS,
  REPO_ROOT,
  SimParams,
  buildReport,
  Manifest,
  plantedText,
  writeReport,
  type Arm,
  type Report,
} from '../../../harness/index.js';
import {
  defectModelOf,
  samplePair,
  streamDraws,
  type DefectModel,
} from '../../../harness/testing.js';
import { simRun } from './run-fixture.js';
import { repetitionsAt, simCells, simJournal, simManifest, type SimDesign } from './sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';
import { sqlcsvDefectTable } from '../../support/sim-corpus.js';

/**
 * The report of a SIMULATED sweep, drawn from the sim's pure generative model (the same
 * identity-keyed decisions a Docker-run sim cell makes): every artifact says SIMULATED with the
 * planted parameters, and every measured per-level survival lies inside the 99% Monte Carlo
 * prediction interval for that sweep's design.
 */

let defects: DefectModel;
beforeAll(async () => {
  defects = defectModelOf(await sqlcsvDefectTable());
});

const design = (over: Partial<SimDesign> = {}): SimDesign => ({ params: { seed: 11 }, caps: [1, 2, 3], repetitions: 5, mergeAttempts: 2, defects, ...over });

/** Per (cap, level, arm): the ratio estimate Σ passing / Σ claims of each of `sweeps` synthetic sweeps of the design. */
function monteCarlo(d: SimDesign, sweeps: number): Map<string, number[]> {
  const params = SimParams.parse(d.params);
  const out = new Map<string, number[]>();
  for (let s = 0; s < sweeps; s++) {
    for (const cap of d.caps) {
      const totals = new Map<string, [number, number]>();
      for (let repetition = 1; repetition <= repetitionsAt(d, cap); repetition++) {
        const draws = streamDraws(hash('sha256', `report-mc/${s}/${cap}/${repetition}`, 'buffer').readUInt32BE(0));
        const pair = samplePair(params, { cap, repetition, mergeAttempts: d.mergeAttempts, defects: d.defects, requirements: SPEC_IDS, draws });
        for (const arm of ARMS) {
          for (const l of pair.arms[arm].levels) {
            const key = `cap ${cap} level ${l.level} ${arm}`;
            const t = totals.get(key) ?? [0, 0];
            totals.set(key, [t[0] + l.passing, t[1] + l.claims]);
          }
        }
      }
      for (const [key, [passing, claims]] of totals) if (claims > 0) (out.get(key) ?? out.set(key, []).get(key)!).push(passing / claims);
    }
  }
  return out;
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo]! + (sorted[Math.min(sorted.length - 1, lo + 1)]! - sorted[lo]!) * (at - lo);
}

interface Check {
  key: string;
  measured: number;
  low: number;
  high: number;
  inside: boolean;
}

/** Each measured per-level survival of the report against the 99% prediction interval of its design (levels seen in at least 100 of the synthetic sweeps). */
function predictionChecks(report: Report, mc: Map<string, number[]>): Check[] {
  const checks: Check[] = [];
  for (const row of report.survival.byCap) {
    for (const arm of ARMS as readonly Arm[]) {
      const figure = row[arm];
      const draws = mc.get(`cap ${row.cap} level ${row.level} ${arm}`);
      if (!figure || !draws || draws.length < 100) continue;
      const sorted = [...draws].sort((a, b) => a - b);
      const [low, high] = [quantile(sorted, 0.005), quantile(sorted, 0.995)];
      checks.push({ key: `cap ${row.cap} level ${row.level} ${arm}`, measured: figure.estimate, low, high, inside: low <= figure.estimate && figure.estimate <= high });
    }
  }
  return checks;
}

const SWEEPS = 2000;

describe('a simulated sweep’s report against its generative model', () => {
  it('puts every measured per-level survival inside the 99% Monte Carlo prediction interval of its design', () => {
    const d = design();
    const cells = simCells(d);
    const report = buildReport({ runName: 'sim', events: simJournal(d, cells), manifest: simManifest(d), defects, requirements: SPEC_IDS });
    const checks = predictionChecks(report, monteCarlo(d, SWEEPS));
    console.log(checks.map((c) => `${c.key.padEnd(24)} ${c.measured.toFixed(3)} in [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]: ${c.inside}`).join('\n'));
    // Every level the design populates, in both arms: a cap-c tree's leaves sit mostly at level c.
    expect(checks.map((c) => c.key)).toEqual(expect.arrayContaining(['cap 1 level 1 gated', 'cap 2 level 2 gated', 'cap 2 level 2 ungated', 'cap 3 level 3 gated', 'cap 3 level 3 ungated']));
    expect(checks.filter((c) => !c.inside)).toEqual([]);
  });

  it('fails the same check when the sweep came from another population than the one it claims', () => {
    const claimed = design();
    // Drawn with twice the planted leaf defect rate, reported under the claimed parameters.
    const cells = simCells(design({ params: { seed: 11, leaf_defect_rate: 0.4 } }));
    const report = buildReport({ runName: 'sim', events: simJournal(claimed, cells), manifest: simManifest(claimed), defects, requirements: SPEC_IDS });
    const outside = predictionChecks(report, monteCarlo(claimed, SWEEPS)).filter((c) => !c.inside);
    expect(outside.length).toBeGreaterThan(0);
  });
});

/** The sections report.md holds, in order, for every sweep. */
const SECTIONS = [
  '## Headline: survival by achieved level, pooled over caps',
  '## Survival by cap and achieved level',
  '## The cap curve',
  '## Achieved depth',
  '## Every cell',
  '## Cost',
  '## Independence audit',
  '## Counts that change what a number means',
  '## Files',
];

describe('the smoke sweep’s report', () => {
  it('has every section, from the shipped smoke manifest (one pair per cap: no interval, said so)', async () => {
    const smoke = await readFile(path.join(REPO_ROOT, 'manifests/smoke.yaml'), 'utf8');
    const d = design({ params: { seed: 1 }, caps: [1, 2], repetitions: 1, name: 'smoke', mergeAttempts: 2 });
    const { dir } = await simRun(d, simCells(d), { manifestYaml: smoke });
    const { report, files } = await writeReport(dir);
    const md = await readFile(path.join(dir, 'report', 'report.md'), 'utf8');
    expect(md.split('\n').filter((l) => l.startsWith('#'))).toEqual(['# smoke: does work survive as the tree gets deeper? (SIMULATED)', ...SECTIONS]);
    for (const chart of report.charts) expect(files).toEqual(expect.arrayContaining([chart.spec, chart.svg]));
    expect(report.survival.byCap.every((r) => r.gated?.interval.kind === 'none')).toBe(true);
    expect(md).toContain('(1 pair, no interval)');
  });
});

describe('the smoke sweep as harness record recorded it (the committed runs/example-sim, what a fresh clone holds)', () => {
  const example = path.join(REPO_ROOT, 'runs', 'example-sim');
  const committed = existsSync(path.join(example, 'journal.jsonl'));

  it.skipIf(!committed && !process.env.CI)('has every section, and each measured per-level survival lies inside the 99% Monte Carlo prediction interval of its design', async () => {
    expect(committed).toBe(true);
    const dir = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-example-report-')), 'example-sim');
    await cp(example, dir, { recursive: true });
    const { report } = await writeReport(dir);
    const md = await readFile(path.join(dir, 'report', 'report.md'), 'utf8');
    // Recorded on the SIMULATED population, its merges and leaves were graded (grade_merges, grade_leaves): their sections follow the depth.
    const withDecay = [...SECTIONS.slice(0, 4), '## Decay merge by merge', '## Work beyond the claims', ...SECTIONS.slice(4)];
    expect(md.split('\n').filter((l) => l.startsWith('## '))).toEqual(withDecay);
    // The pinned bytes, parsed as data: the spec path inside is relative to the repository's manifests/.
    const manifest = Manifest.parse(YAML.parse(await readFile(path.join(dir, 'manifest.yaml'), 'utf8')));
    const d = design({ params: manifest.simulated, caps: manifest.depth_caps, repetitions: manifest.repetitions.default, mergeAttempts: manifest.merge_attempts, name: manifest.name });
    const checks = predictionChecks(report, monteCarlo(d, SWEEPS));
    console.log(checks.map((c) => `example ${c.key.padEnd(24)} ${c.measured.toFixed(3)} in [${c.low.toFixed(3)}, ${c.high.toFixed(3)}]: ${c.inside}`).join('\n'));
    // Both arms of the deepest cap's deepest level are measured: the check is never vacuous.
    expect(checks.map((c) => c.key)).toEqual(expect.arrayContaining(['cap 2 level 2 gated', 'cap 2 level 2 ungated']));
    expect(checks.filter((c) => !c.inside)).toEqual([]);
  });
});

describe('every artifact of a simulated sweep says SIMULATED, with its planted parameters', () => {
  it('report.json, report.md’s first screen, each chart’s spec and SVG, and the terminal summary', async () => {
    const d = design({ params: { seed: 4, judge_recall: 0.9 }, caps: [1, 2], repetitions: 2 });
    const { dir } = await simRun(d, simCells(d));
    const written = await writeReport(dir);
    const planted = SimParams.parse(d.params);
    expect(written.report.simulated?.planted).toEqual(planted);
    // The truth came from the closed form (the corpus matched the journal's pin).
    expect(written.report.survival.byCap.every((r) => r.gated?.truth !== null)).toBe(true);
    const pairs = Object.entries(planted)
      .filter(([key]) => key !== 'branching')
      .map(([key, value]) => `${key} ${value}`);
    const says = (name: string, text: string) => {
      expect({ name, simulated: text.includes('SIMULATED') }).toEqual({ name, simulated: true });
      for (const p of pairs) expect({ name, p, present: text.includes(p) }).toEqual({ name, p, present: true });
    };
    const reportDir = path.join(dir, 'report');
    says('report.json', await readFile(path.join(reportDir, 'report.json'), 'utf8'));
    says('report.md first screen', (await readFile(path.join(reportDir, 'report.md'), 'utf8')).split('\n').slice(0, 8).join('\n'));
    for (const name of await readdir(path.join(reportDir, 'charts'))) says(name, await readFile(path.join(reportDir, 'charts', name), 'utf8'));
    says('summary', written.summary);
    expect(plantedText(planted)).toContain('judge_recall 0.9');
    // A corpus other than the pinned one: no truth rather than a wrong one, and the report says why.
    const other = await writeReport(dir, { simCorpusDir: path.join(REPO_ROOT, 'spec', 'sqlcsv') });
    expect(other.report.simulated?.truth).toMatch(/^not computed: the sim corpus \(harness\/sim\/corpus\/sqlcsv\) is not the one the journal pinned/);
    expect(other.report.survival.byCap.every((r) => r.gated?.truth === null)).toBe(true);
  });
});
