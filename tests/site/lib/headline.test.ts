import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFiles } from '../../../harness/index.js';
import { reproduceSteps } from '../../../site/src/lib/reproduce-steps.js';
import { headline, isSimulated, splitAfterTitle } from '../../../site/src/lib/headline.js';

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
const GOLDEN = path.join(REPO, 'tests', 'harness', 'report', '__snapshots__', 'golden');
const EXAMPLE = path.join(REPO, 'runs', 'example-sim', 'report');
const load = async (dir: string) => runFiles.Report.parse(JSON.parse(await readFile(path.join(dir, 'report.json'), 'utf8')));
const golden = await load(GOLDEN);
const example = await load(EXAMPLE);

/** The cells of report.md's headline table, bold marks removed, as the harness renders it from this report.json. */
function reportMdHeadline(report: runFiles.Report): string[][] {
  const md = runFiles.renderMarkdown(report);
  const lines = md.slice(md.indexOf('## Headline')).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith('|'));
  // The header and the alignment row are not figures.
  const rows = lines.slice(first + 2, end).map((line) => line.slice(1, -1).split('|').map((c) => c.replace(/\*\*/g, '').trim()));
  return rows;
}

describe('the headline strip', () => {
  it('decides SIMULATED by the one rule: report.simulated is set', () => {
    expect(isSimulated(example)).toBe(true);
    expect(isSimulated(golden)).toBe(false);
    // Whatever else the report says (a simulated provider named in the design), the rule is the field.
    expect(isSimulated({ ...golden, simulated: { planted: null, text: 'planted parameters unreadable', truth: 'not computed' } })).toBe(true);
  });

  it('prints each pooled level exactly as report.md does: gated, ungated and the signed difference with its interval', () => {
    for (const report of [golden, example]) {
      const h = headline(report);
      const md = reportMdHeadline(report);
      expect(h.rows.length).toBe(report.survival.pooled.length);
      expect(h.rows.length).toBeGreaterThan(0);
      expect(h.rows.map((r) => [String(r.level), r.gated, r.ungated, r.difference, ...(r.planted === null ? [] : [r.planted])])).toEqual(md);
    }
  });

  it('shows the numbers report.json holds, an interval where there is one and "1 pair" where there is not', () => {
    const row = golden.survival.pooled[0]!;
    const g = row.gated!;
    if (g.interval.kind !== 't') throw new Error('the golden report\'s first pooled level has a t interval');
    expect(headline(golden).rows[0]!.gated).toBe(`${g.estimate.toFixed(3)} [${g.interval.low.toFixed(3)}, ${g.interval.high.toFixed(3)}] (uncalibrated, 2 pairs)`);
    expect(headline(golden).rows[0]!.difference.startsWith('+')).toBe(true);
    expect(headline(golden).rows[0]!.planted).toBeNull();
    const ex = headline(example).rows[1]!;
    expect(ex.ungated).toBe(`${example.survival.pooled[1]!.ungated!.estimate.toFixed(3)} (1 pair, no interval)`);
    expect(ex.planted).toMatch(/^\d\.\d{3} \/ \d\.\d{3} \/ [+-]?\d\.\d{3}$/);
  });

  it('says "identical by design" for a level-0 difference under shared pairing, and "–" for an arm with no figure', () => {
    const pooled = structuredClone(example.survival.pooled[0]!);
    pooled.level = 0;
    pooled.difference = { ...pooled.difference!, estimate: 0, interval: { kind: 'none', reason: runFiles.IDENTICAL_BY_DESIGN } };
    pooled.ungated = null;
    const report = { ...example, survival: { ...example.survival, pooled: [pooled] } };
    expect(headline(report).rows).toEqual([{ level: 0, gated: expect.any(String), ungated: '–', difference: '0.000 (identical by design)', planted: expect.stringMatching(/^\d\.\d{3} \/ – \/ /) }]);
  });

  it('gives the ruling\'s words when the report has one, says so when it is not pre-registered, and nothing when there is none', () => {
    expect(headline(example).ruling).toBeNull();
    const interval = golden.survival.pooled[0]!.difference!.interval;
    const ruled: runFiles.RulingSection = {
      registration: 'pre-registered', why: null, hypothesis: null,
      comparisons: [
        { comparison: 'level 2', role: 'primary', alpha: 0.05, estimate: 0.2, pairs: 8, pValue: 0.01, interval, ruling: 'SUPPORTED' },
        { comparison: 'levels >= 1', role: 'secondary', alpha: 0.05, estimate: null, pairs: 0, pValue: null, interval: null, ruling: 'INCONCLUSIVE' },
      ],
    };
    expect(headline({ ...golden, ruling: ruled }).ruling).toEqual({
      registration: 'pre-registered', why: null,
      comparisons: [{ comparison: 'level 2', role: 'primary', ruling: 'SUPPORTED' }, { comparison: 'levels >= 1', role: 'secondary', ruling: 'INCONCLUSIVE' }],
    });
    const late: runFiles.RulingSection = { registration: 'not pre-registered', why: 'the journal pins no hypothesis', hypothesis: null, comparisons: [] };
    expect(headline({ ...golden, ruling: late }).ruling).toEqual({ registration: 'not pre-registered', why: 'the journal pins no hypothesis', comparisons: [] });
  });

  it('says how to reproduce the run from report.json: the command, the commit and its dirty flag, the pins', () => {
    const r = headline(example).reproduce;
    expect(r).toEqual({
      command: `npm run harness -- record manifests/${example.sweep.name}.yaml`,
      manifest: `manifests/${example.sweep.name}.yaml`,
      commit: example.sweep.code.commit,
      dirty: example.sweep.code.dirty,
      manifestSha256: example.sweep.manifestSha256,
      harnessVersion: example.sweep.harnessVersion,
      executor: `${example.design.executor.realModel} (sim, family ${example.design.executor.family})`,
      reviewer: `${example.design.reviewer.realModel} (sim, family ${example.design.reviewer.family})`,
      steps: reproduceSteps({ manifest: `manifests/${example.sweep.name}.yaml`, commit: example.sweep.code.commit, run: example.sweep.run, simulated: true }, null),
      repository: null,
    });
    expect(r.steps.at(-1)!.command).toBe(`npm run harness -- record manifests/smoke.yaml --out runs/${example.sweep.run}-again`);
    expect(headline(example, 'https://example.invalid/rdh.git').reproduce.steps[0]!.command).toContain('git clone https://example.invalid/rdh.git');
    expect(r.command).toBe('npm run harness -- record manifests/smoke.yaml');
    const unknown = headline({ ...golden, sweep: { ...golden.sweep, code: { commit: null, dirty: null } } }).reproduce;
    expect([unknown.commit, unknown.dirty]).toEqual([null, null]);
    expect(headline(golden).confidence).toBe('95%');
  });

  it('splits the rendered report after its title, so the strip sits right under it', () => {
    expect(splitAfterTitle('<h1 id="t">Sweep</h1>\n<p>words</p>')).toEqual({ title: '<h1 id="t">Sweep</h1>', rest: '\n<p>words</p>' });
    expect(splitAfterTitle('<p>no title</p>')).toEqual({ title: '', rest: '<p>no title</p>' });
  });
});
