import { describe, expect, it } from 'vitest';
import { buildReport, cellId, chartSpecs, planInputFor, projectPlan, renderMarkdown, reportJson, type CellMeasurement, type SweepEventInput } from '../../../harness/index.js';
import { faceLines, isolatedDefects } from '../../../harness/testing.js';
import { simCells, simJournal, simManifest, simPins, stampEvents, unstamp, type SimDesign } from './sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/** The pure report: journal in, report out. The golden and simulated tests cover whole sweeps; these pin one mechanism each. */

const defects = isolatedDefects(SPEC_IDS);
const DESIGN: SimDesign = { params: { seed: 5 }, caps: [1, 2], repetitions: 3, mergeAttempts: 2, defects };

const build = (cells: readonly CellMeasurement[], options: Parameters<typeof simJournal>[2] = {}, design = DESIGN, manifestOver: Record<string, unknown> = {}) =>
  buildReport({ runName: 'run', events: simJournal(design, cells, options), manifest: simManifest(design, manifestOver), defects, requirements: SPEC_IDS });

describe('buildReport', () => {
  it('refuses a sweep where nothing was measured rather than publishing zeros', () => {
    const cells = simCells(DESIGN);
    const outcomes = Object.fromEntries(cells.map((c) => [cellId(c), { status: 'unavailable' as const, reason: 'provider' as const, detail: 'no answer' }]));
    expect(() => build(cells, { outcomes })).toThrowErrorMatchingInlineSnapshot(
      `[UsageError: run: no cell was measured (12 unavailable, 0 unmeasured, 0 interrupted, 0 not recorded); a sweep where nothing was measured is not published as a curve of zeros]`,
    );
  });

  it('bins on the level a leaf reached: a cap-3 tree that stopped at level 1 adds to level 1, never to level 2', () => {
    const design = { ...DESIGN, caps: [3], repetitions: 2 };
    const cells = simCells(design).map((c) => ({ ...c, leaves: c.leaves.map((l) => ({ ...l, level: Math.min(l.level, 1) })), merges: c.merges.filter((m) => m.level === 0) }));
    const report = build(cells, {}, design);
    expect(report.survival.byCap.map((r) => `cap ${r.cap} level ${r.level}`)).toEqual(['cap 3 level 1']);
    expect(report.depth.filter((b) => b.cells > 0).map((b) => b.deepestLevel)).toEqual([1, 1]);
  });

  it('gives a cell with no resolved claim no survival, never NaN, and says so', () => {
    // Both arms of the pair: under shared pairing they grade one tree with the same leaves.
    const cells = simCells(DESIGN).map((c) => (c.cap === 1 && c.repetition === 1 ? { ...c, leaves: c.leaves.map((l) => ({ ...l, delivered: false })) } : c));
    const report = build(cells);
    expect(report.cells[0]!.result).toMatchObject({ claimed: 0, surviving: 0, survival: null });
    const text = reportJson(report) + renderMarkdown(report) + chartSpecs(report).map((c) => reportJson(c.spec)).join('');
    expect(text).not.toMatch(/\bNaN\b|Infinity/);
    expect(renderMarkdown(report)).toContain('| cap1-rep1-gated | measured | no claims |');
    expect(() => reportJson({ estimate: Number.NaN })).toThrow(/estimate is NaN/);
  });

  it('prints the planted truth beside each figure, the pooled truth weighted as the estimate is', () => {
    const report = build(simCells(DESIGN));
    const level2 = report.survival.pooled.find((r) => r.level === 2)!;
    const cap2 = report.survival.byCap.find((r) => r.cap === 2 && r.level === 2)!;
    // Level 2 exists only at cap 2 (a node at level k splits iff k < cap), so its pooled truth is cap 2's.
    expect(level2.gated!.truth).toBeCloseTo(cap2.gated!.truth!, 12);
    expect(cap2.difference!.truth).toBeCloseTo(cap2.gated!.truth! - cap2.ungated!.truth!, 12);
    // Cap 1 merges once: the judge's recall (0.8) over the self-review's (0.3) shows already there.
    expect(report.survival.capCurve.find((r) => r.cap === 1)!.difference!.truth).toBeGreaterThan(0.005);
    // No defect model: a real sweep, no truth.
    const real = buildReport({ runName: 'run', events: simJournal(DESIGN, simCells(DESIGN)), manifest: simManifest(DESIGN) });
    expect(real.survival.byCap.every((r) => r.gated?.truth === null)).toBe(true);
  });

  it('reports a pair with one arm measured as unpaired, with a caveat, and draws no axis from nothing (never NaN)', () => {
    const design = { ...DESIGN, caps: [1], repetitions: 1 };
    const cells = simCells(design);
    const outcomes = { 'cap1-rep1-gated': { status: 'unavailable' as const, reason: 'ungradable' as const, detail: 'the tree cannot be graded' } };
    const report = build(cells, { outcomes }, design);
    // Left out of both arms' figures, never half-counted: the curves and the difference rest on the same pairs.
    expect(report.survival.byCap).toEqual([]);
    expect(report.counts.unpaired).toEqual(['cap1-rep1-ungated']);
    expect(report.caveats.find((c) => c.kind === 'unpaired')?.text).toMatchInlineSnapshot(`"UNPAIRED: 1 cell measured without the other arm of its pair (cap1-rep1-ungated): left out of every survival figure, so both arms' curves and their difference rest on the same complete pairs."`);
    expect(faceLines(report).join('\n')).toContain('UNPAIRED');
    const charts = chartSpecs(report).map((c) => reportJson(c.spec)).join('');
    expect(charts).not.toMatch(/\bNaN\b|Infinity|null\s*,\s*null/);
    expect(charts).toContain('No pair has both arms measured');
  });

  it('refuses cells that disagree on pairing', () => {
    const cells = simCells(DESIGN);
    cells[1] = { ...cells[1]!, pairing: 'independent' };
    expect(() => build(cells)).toThrow(/disagree on pairing/);
  });
});

describe('the cost panel', () => {
  it('counts a pair’s shared planning and leaves once, and keeps what unmeasured cells spent', () => {
    const cells = simCells(DESIGN);
    const report = build(cells);
    const cap2 = cells.filter((c) => c.cap === 2);
    const shared = cap2.filter((c) => c.arm === 'gated').reduce((n, c) => n + c.spend.leaf.sessions + c.spend.planning.sessions, 0);
    const merges = cap2.reduce((n, c) => n + c.spend.merge.sessions, 0);
    expect(report.cost.caps.find((c) => c.cap === 2)!.actual.sessions).toBe(shared + merges);
    // The forecast for cap 2 learns from cap 1; cap 1 has nothing below it.
    expect(report.cost.caps.map((c) => [c.cap, c.forecast?.fromCaps ?? null])).toEqual([
      [1, null],
      [2, [1]],
    ]);
  });

  it('declares, under shared pairing, what `harness plan` bills for the same cells: each pair’s build once, then each arm’s merges', () => {
    const report = build(simCells(DESIGN));
    const manifest = simManifest(DESIGN);
    const plan = projectPlan(planInputFor(manifest));
    // b = 2, 2 merge attempts, 3 pairs per cap. Cap 1: a pair's build is 2 leaves x (4 + 4 drift) +
    // 1 planner = 17, each arm's merges 1 x [seam checker + meta-verifier + 2 x (merger + review + 4 drift)] = 14.
    expect(plan.caps[0]!.perPair).toMatchObject({ buildPerTree: 17, mergesPerArm: 14 });
    expect(report.cost.caps.map((c) => [c.cap, c.declared.sessions])).toEqual(plan.caps.map((c) => [c.cap, c.sessions]));
    expect(report.cost.caps[0]!.declared.sessions).toBe(3 * 17 + 6 * 14);
    // The per-cell formula would count the shared build once per cell: 6 x 31 = 186, not 135.
    expect(report.cost.caps[0]!.declared.sessions).not.toBe(6 * plan.caps[0]!.perCell.total);
    for (const row of report.cost.caps) expect(row.actualOverDeclared).toBeCloseTo(row.actual.sessions / row.declared.sessions, 12);
  });

  it('declares a pair with one arm measured as that arm’s whole tree, as its actual spend counts it', () => {
    const report = build(simCells(DESIGN), { outcomes: { 'cap1-rep1-gated': { status: 'unavailable', reason: 'provider', detail: 'no answer' } } });
    expect(report.cost.caps[0]).toMatchObject({ measuredCells: 5, pairs: 3 });
    // Two whole pairs, and the lone ungated cell paying for the build it would have shared.
    expect(report.cost.caps[0]!.declared.sessions).toBe(2 * (17 + 2 * 14) + (17 + 14));
  });

  it('declares, under independent pairing, each cell’s own whole tree', () => {
    const cells = simCells(DESIGN).map((c) => ({ ...c, pairing: 'independent' as const }));
    const report = build(cells, {}, DESIGN, { pairing: 'independent' });
    const plan = projectPlan(planInputFor(simManifest(DESIGN, { pairing: 'independent' })));
    expect(report.cost.caps.map((c) => c.declared.sessions)).toEqual(plan.caps.map((c) => 6 * c.perCell.total));
    expect(report.cost.caps[0]!.declared.sessions).toBe(6 * 31);
  });

  it("declares, under max_children, the plan's bound for the same cells, and says so", () => {
    // projected_branching 2 is the scenario; max_children 3 is the bound the plan prints instead.
    const report = build(simCells(DESIGN), {}, DESIGN, { projected_branching: 2, max_children: 3 });
    const plan = projectPlan(planInputFor(simManifest(DESIGN, { projected_branching: 2, max_children: 3 })));
    expect(plan.maxChildren).toBe(3);
    expect(report.cost.caps.map((c) => [c.cap, c.declared])).toEqual(plan.caps.map((c) => [c.cap, { branching: 3, sessions: c.sessions, bound: true }]));
    expect(build(simCells(DESIGN)).cost.caps[0]!.declared).not.toHaveProperty('bound');
  });

  it('reports sessions that served no measured cell as spent without a measurement', () => {
    const cells = simCells(DESIGN).filter((c) => !(c.cap === 2 && c.repetition === 3));
    const who = { cellIds: ['cap2-rep3-gated', 'cap2-rep3-ungated'], sessionId: 's1', role: 'worker' as const, nodePath: 'root.0', attempt: 1 };
    const extra: SweepEventInput[] = [
      { type: 'session_started', ...who, reopened: false },
      { type: 'session_finished', ...who, turns: 3, tokens: { input: 100, cached: 0, output: 10 }, costUsd: null, stop: 'provider', detail: '503' },
    ];
    const base = simJournal(DESIGN, cells, { stop: { type: 'sweep_stopped', reason: 'interrupted', detail: 'Ctrl-C', unmeasured: [] } });
    const events = stampEvents([...base.slice(0, -1).map(unstamp), ...extra, unstamp(base.at(-1)!)]);
    const report = buildReport({ runName: 'run', events, manifest: simManifest(DESIGN), defects, requirements: SPEC_IDS });
    expect(report.cost.caps.find((c) => c.cap === 2)!.unmeasured).toEqual({ sessions: 1, tokens: { input: 100, cached: 0, output: 10 }, costUsd: null, unpricedSessions: 1 });
    expect(report.counts.cells).toMatchObject({ measured: 10, interrupted: 2 });
    expect(report.caveats.map((c) => c.kind)).toEqual(['simulated', 'interrupted', 'unpriced', 'uncalibrated']);
  });
});

describe('caveats on the face of every artifact', () => {
  it('lists same_family, a code change, a recorded caveat, a quota stop and staged caps, and every chart carries them', () => {
    const design = { ...DESIGN, caps: [1, 2, 3] };
    const cells = simCells({ ...design, caps: [1, 2] });
    const journal = simJournal(design, cells, { stop: { type: 'sweep_stopped', reason: 'quota', detail: 'insufficient_quota', unmeasured: [] } }).map(unstamp);
    const run = journal.find((e) => e.type === 'run_started')!;
    Object.assign(run, { depths: [1, 2] });
    journal.splice(2, 0, { ...(run as Extract<SweepEventInput, { type: 'run_started' }>), resume: true, code: { state: 'git', commit: '1234567890abcdef1234567890abcdef12345678', dirty: true, changes: 'e'.repeat(64) }, caveats: ['CODE CHANGED: resumed with --allow-code-change'] });
    const manifestOver = { independence: 'same_family', reviewer: { provider: 'sim', model: 'sim-reviewer', family: 'sim-alpha', rung: 1 } };
    const report = buildReport({ runName: 'run', events: stampEvents(journal), manifest: simManifest(design, manifestOver), defects, requirements: SPEC_IDS });
    expect(report.caveats.map((c) => c.kind)).toEqual(['simulated', 'same_family', 'code_changed', 'recorded', 'quota', 'incomplete', 'uncalibrated']);
    const face = faceLines(report).join('\n');
    for (const tag of ['SIMULATED', 'SAME FAMILY', 'CODE CHANGED', 'QUOTA STOP', 'cells measured']) expect(face).toContain(tag);
    for (const { name, spec } of chartSpecs(report)) {
      const subtitle = JSON.stringify((spec.title as { subtitle: string[] }).subtitle);
      for (const tag of ['SIMULATED', 'SAME FAMILY', 'QUOTA STOP']) expect({ name, tag, shown: subtitle.includes(tag) }).toEqual({ name, tag, shown: true });
    }
    expect(renderMarkdown(report).split('\n').slice(0, 20).join('\n')).toContain('SAME FAMILY: executor and reviewer are both from family "sim-alpha"');
  });
});

describe('nothing hidden (issue 20)', () => {
  const design = { ...DESIGN, caps: [2], repetitions: 2 };
  const gatedFirst = (cells: CellMeasurement[], edit: (c: CellMeasurement) => CellMeasurement) => cells.map((c, i) => (i === cells.findIndex((x) => x.arm === 'gated' && x.merges.length > 0) ? edit(c) : c));

  it('lists a gated merge attempt nobody judged as an exception: the audit never reads 100% over a missing judgement', () => {
    const cells = gatedFirst(simCells(design), (c) => ({ ...c, merges: c.merges.map((m, j) => (j === 0 ? { ...m, unjudged: [{ attempt: m.attempts, reason: 'no reviewer answered' }] } : m)) }));
    const report = build(cells, {}, design);
    expect(report.independence.share).toBeLessThan(1);
    expect(report.independence.exceptions.map((e) => e.reason)).toEqual([expect.stringContaining('was not judged: no reviewer answered')]);
  });

  it('says how many calls had estimated usage and how many oracle cases timed out, each with a caveat', () => {
    const cells = gatedFirst(simCells(design), (c) => ({ ...c, spend: { ...c.spend, leaf: { ...c.spend.leaf, estimatedCalls: 3 } }, grade: { ...c.grade, timedOutCases: 2 } }));
    const report = build(cells, {}, design);
    expect(report.caveats.filter((c) => c.kind === 'estimated_usage' || c.kind === 'timed_out').map((c) => c.text)).toMatchInlineSnapshot(`
      [
        "ESTIMATED USAGE: 3 calls reported missing or malformed usage, so their tokens (and spend) are estimates; each cell's spend says how many.",
        "TIMED OUT: 2 oracle cases ran past the per-case limit in 1 cell (cap2-rep1-gated) and counted as failures; on a loaded machine a timeout may be the machine's, not the tree's.",
      ]
    `);
    expect(report.cells.find((r) => r.spend.estimatedCalls)?.spend.estimatedCalls).toBe(3);
  });

  it('counts and names a measured cell with no delivered claim', () => {
    // Both arms of one pair: under shared pairing they share the leaves.
    const cells = simCells(design).map((c) => (c.repetition === 1 ? { ...c, leaves: c.leaves.map((l) => ({ ...l, delivered: false })) } : c));
    const report = build(cells, {}, design);
    expect(report.counts.noClaims).toEqual(['cap2-rep1-gated', 'cap2-rep1-ungated']);
    expect(report.caveats.some((c) => c.kind === 'no_claims')).toBe(true);
    expect(renderMarkdown(report)).toContain('Measured with no delivered claim');
  });

  it('shows no truth, and says so, when the pinned planted parameters do not parse (never the manifest’s instead)', () => {
    const cells = simCells(design);
    const report = buildReport({ runName: 'run', events: simJournal(design, cells, { pins: { ...simPins(design), simulated: { seed: 'not a number' } } }), manifest: simManifest(design), defects, requirements: SPEC_IDS });
    expect(report.simulated).toEqual({ planted: null, text: expect.stringContaining('unreadable'), truth: "not computed: the journal's pinned planted parameters do not parse" });
    expect(report.survival.byCap.every((r) => r.gated?.truth === null)).toBe(true);
    // Without the pinned spec's requirements there is no truth either.
    expect(buildReport({ runName: 'run', events: simJournal(design, cells), manifest: simManifest(design), defects }).simulated?.truth).toMatch(/^not computed/);
  });

  it('under shared pairing a root that executes whole is measured at level 0, identical by design: no interval, left out of the cap curve’s difference', () => {
    const one = { ...DESIGN, params: { seed: 5, early_leaf_rate: 1 }, caps: [1], repetitions: 3 };
    const report = build(simCells(one), {}, one);
    const level0 = report.survival.byCap.find((r) => r.level === 0)!;
    expect(level0.gated!.claimed).toBeGreaterThan(0);
    expect(level0.difference!.interval).toEqual({ kind: 'none', reason: expect.stringContaining('identical by design') });
    expect(renderMarkdown(report)).toContain('(identical by design)');
    // Nothing but level 0 was measured: the cap curve has no difference to show.
    expect(report.survival.capCurve[0]!.difference).toBeNull();
  });
});
