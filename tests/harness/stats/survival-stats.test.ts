import { describe, expect, it } from 'vitest';
import { survivalStats, type CellTally, type SurvivalStats } from '../../../harness/index.js';
import { survivalSection } from '../../../harness/testing.js';

type Tallies = Record<number, [claimed: number, surviving: number]>;

function pair(cap: number, repetition: number, gated: Tallies, ungatedSurviving: Record<number, number>): CellTally[] {
  const levels = (surviving: (level: number) => number) =>
    Object.entries(gated).map(([level, [claimed]]) => ({ level: Number(level), claimed, surviving: surviving(Number(level)) }));
  return [
    { cap, repetition, arm: 'gated', levels: levels((l) => gated[l]![1]) },
    { cap, repetition, arm: 'ungated', levels: levels((l) => ungatedSurviving[l]!) },
  ];
}

/** A small shared-pairing sweep: cap 2 with 6 pairs, cap 3 with 2 pairs and one cell whose other arm is missing. */
const SWEEP: CellTally[] = [
  ...pair(2, 1, { 1: [12, 11], 2: [6, 5] }, { 1: 9, 2: 3 }),
  ...pair(2, 2, { 1: [10, 9], 2: [8, 8] }, { 1: 8, 2: 5 }),
  ...pair(2, 3, { 1: [14, 14], 2: [4, 3] }, { 1: 10, 2: 2 }),
  ...pair(2, 4, { 1: [20, 17] }, { 1: 15 }),
  ...pair(2, 5, { 1: [8, 8] }, { 1: 7 }),
  ...pair(2, 6, { 1: [9, 7] }, { 1: 7 }),
  ...pair(3, 1, { 1: [10, 9], 2: [12, 10], 3: [6, 4] }, { 1: 8, 2: 7, 3: 2 }),
  ...pair(3, 2, { 1: [15, 15], 2: [10, 8] }, { 1: 12, 2: 6 }),
  { cap: 3, repetition: 3, arm: 'gated', levels: [{ level: 1, claimed: 9, surviving: 9 }] },
];

const round = (n: number) => Number(n.toFixed(4));

/** One line per estimate: what a reader of the report would see. */
function digest(stats: SurvivalStats): string[] {
  const line = (where: string, e: { estimate: number; pairs?: number; interval: SurvivalStats['pooled'][number]['gated'] extends infer P ? (P extends { interval: infer I } ? I : never) : never } | null) => {
    if (!e) return `${where}: none`;
    const i = e.interval;
    const interval = i.kind === 'none' ? `no interval (${i.reason})` : `[${round(i.low)}, ${round(i.high)}] df ${round(i.df)}${i.label ? ` ${i.label}` : ''}`;
    return `${where}: ${round(e.estimate)}${e.pairs === undefined ? '' : ` n=${e.pairs}`} ${interval}`;
  };
  const out: string[] = [];
  for (const cap of stats.caps) for (const l of cap.levels) for (const k of ['gated', 'ungated', 'difference'] as const) out.push(line(`cap ${cap.cap} L${l.level} ${k}`, l[k]));
  for (const l of stats.pooled) for (const k of ['gated', 'ungated', 'difference'] as const) out.push(line(`pooled L${l.level} ${k}`, l[k]));
  return out;
}

describe('survival per level: cells as clusters, t(n−1) within a cap, Satterthwaite pooled', () => {
  const stats = survivalStats({ pairing: 'shared', cells: SWEEP });

  it('reports every estimate with its interval, its label below 5 pairs and none from 1 pair', () => {
    expect(digest(stats)).toMatchInlineSnapshot(`
      [
        "cap 2 L1 gated: 0.9041 n=6 [0.7792, 0.9618] df 5",
        "cap 2 L1 ungated: 0.7671 n=6 [0.7154, 0.8119] df 5",
        "cap 2 L1 difference: 0.137 n=6 [0.0363, 0.235] df 5",
        "cap 2 L2 gated: 0.8889 n=3 [0.2349, 0.9952] df 2 uncalibrated (3 pairs)",
        "cap 2 L2 ungated: 0.5556 n=3 [0.3569, 0.7379] df 2 uncalibrated (3 pairs)",
        "cap 2 L2 difference: 0.3333 n=3 [0.189, 0.4636] df 2 uncalibrated (3 pairs)",
        "cap 3 L1 gated: 0.9706 n=3 [0.2234, 0.9997] df 2 uncalibrated (3 pairs)",
        "cap 3 L1 ungated: 0.8 n=2 [0.0579, 0.9962] df 1 uncalibrated (2 pairs, assumed spread SD 0.177)",
        "cap 3 L1 difference: 0.16 n=2 [-0.4338, 0.6569] df 1 uncalibrated (2 pairs)",
        "cap 3 L2 gated: 0.8182 n=2 [0.5231, 0.9486] df 1 uncalibrated (2 pairs)",
        "cap 3 L2 ungated: 0.5909 n=2 [0.4833, 0.6904] df 1 uncalibrated (2 pairs)",
        "cap 3 L2 difference: 0.2273 n=2 [-0.1005, 0.5106] df 1 uncalibrated (2 pairs)",
        "cap 3 L3 gated: 0.6667 n=1 no interval (1 pair)",
        "cap 3 L3 ungated: 0.3333 n=1 no interval (1 pair)",
        "cap 3 L3 difference: 0.3333 n=1 no interval (1 pair)",
        "pooled L1 gated: 0.9263 [0.8422, 0.9673] df 6.6614 uncalibrated (3 pairs)",
        "pooled L1 ungated: 0.7753 [0.73, 0.815] df 5.3184 uncalibrated (2 pairs, assumed spread SD 0.177)",
        "pooled L1 difference: 0.1427 [0.065, 0.2188] df 5.9807 uncalibrated (2 pairs)",
        "pooled L2 gated: 0.8606 [0.5634, 0.9673] df 2.0857 uncalibrated (2 pairs)",
        "pooled L2 ungated: 0.5697 [0.4499, 0.6818] df 2.0555 uncalibrated (2 pairs)",
        "pooled L2 difference: 0.2909 [0.2177, 0.3608] df 2.8073 uncalibrated (2 pairs)",
        "pooled L3 gated: 0.6667 no interval (no cap has 2 pairs at this level)",
        "pooled L3 ungated: 0.3333 no interval (no cap has 2 pairs at this level)",
        "pooled L3 difference: 0.3333 no interval (no cap has 2 pairs at this level)",
      ]
    `);
  });

  it('uses Σ surviving / Σ claimed and counts only cells with claims at the level', () => {
    const l2 = stats.caps[0]!.levels.find((l) => l.level === 2)!;
    expect(l2.gated).toMatchObject({ estimate: 16 / 18, pairs: 3, claimed: 18, surviving: 16 });
    expect(l2.difference!.estimate).toBeCloseTo((16 - 10) / 18, 15);
  });

  it('leaves a cell whose other arm is missing out of the difference, and says so', () => {
    const l1 = stats.caps[1]!.levels.find((l) => l.level === 1)!;
    expect(l1.gated!.pairs).toBe(3);
    expect(l1.difference).toMatchObject({ pairs: 2, unpairedCells: 1 });
    expect(stats.caps[1]!.cells).toEqual({ gated: 3, ungated: 2 });
  });

  it('pools caps weighted by pairs, and lists a 1-pair cap as excluded rather than guessing its error', () => {
    const l3 = stats.pooled.find((l) => l.level === 3)!;
    expect(l3.gated).toMatchObject({ interval: { kind: 'none', reason: 'no cap has 2 pairs at this level' }, excluded: [] });
    const l2 = stats.pooled.find((l) => l.level === 2)!;
    expect(l2.gated!.strata).toEqual([
      { cap: 2, pairs: 3, weight: 0.6 },
      { cap: 3, pairs: 2, weight: 0.4 },
    ]);
  });
});

describe('the cluster, not the leaf, is the unit', () => {
  it('gives a bimodal sweep (trees all pass or all fail) the wide interval it deserves', () => {
    const cells: CellTally[] = [20, 0, 20, 0, 20, 0].flatMap((surviving, i) => pair(1, i + 1, { 1: [20, surviving] }, { 1: surviving }));
    const gated = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!.gated!;
    expect(gated.estimate).toBe(0.5);
    // Six clusters of ±0.5: SE = sqrt(0.3/6). A leaf-level binomial SE would be sqrt(0.25/120) = 0.046.
    expect(gated.interval).toMatchObject({ kind: 't', df: 5, standardError: expect.closeTo(Math.sqrt(0.3 / 6), 12), calibrated: true, label: null });
  });
});

describe('edges: no NaN, no infinity, explicit absence', () => {
  it('gives pairs with no spread an interval of positive width from the declared spread, labelled "assumed spread", never calibrated', () => {
    const cells = [1, 2, 3, 4, 5, 6].flatMap((r) => pair(2, r, { 1: [10 + r, 10 + r] }, { 1: 9 + r }));
    const l = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!;
    // Score interval at û = 1: low = 1/(1 + k), k = 4·t²·σ²/n, σ = 0.25/√2 (the default declared spread per arm), t = t(0.975, 5).
    const k = (4 * 2.5705818366147395 ** 2 * (0.25 / Math.SQRT2) ** 2) / 6;
    expect(l.gated!.interval).toMatchObject({ high: 1, standardError: 0, assumedSpread: expect.closeTo(0.25 / Math.SQRT2, 12), scale: 'score', calibrated: false, label: 'assumed spread (SD 0.177, 6 pairs)' });
    expect(l.gated!.interval.kind === 't' && l.gated!.interval.low).toBeCloseTo(1 / (1 + k), 9);
    expect(l.ungated!.interval).toMatchObject({ assumedSpread: null, scale: 'logit', calibrated: true, label: null });
  });

  it("issue 20's case: two perfect gated pairs no longer give [1.000, 1.000], and the declared spread sets the width", () => {
    const cells = [1, 2].flatMap((r) => pair(2, r, { 2: [40, 40] }, { 2: 30 + r }));
    const gatedAt = (pairDifferenceSd?: number) => survivalStats({ pairing: 'shared', cells }, pairDifferenceSd === undefined ? {} : { pairDifferenceSd }).caps[0]!.levels[0]!.gated!.interval;
    const declared = gatedAt();
    expect(declared).toMatchObject({ kind: 't', high: 1, label: 'uncalibrated (2 pairs, assumed spread SD 0.177)' });
    // t(0.975, 1) = 12.71: two pairs that agree leave almost every survival possible.
    expect(declared.kind === 't' && declared.low).toBeCloseTo(1 / (1 + (4 * 12.706204736174707 ** 2 * 0.03125) / 2), 9);
    const tighter = gatedAt(0.02);
    expect(tighter.kind === 't' && declared.kind === 't' && tighter.low > declared.low && tighter.low < 1).toBe(true);
  });

  it('near 1 the interval is asymmetric (logit scale): longer below the estimate than above, and never past 1', () => {
    const cells = [40, 40, 39, 40, 38, 40].flatMap((surviving, i) => pair(1, i + 1, { 1: [40, surviving] }, { 1: 30 }));
    const i = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!.gated!;
    expect(i.interval).toMatchObject({ kind: 't', scale: 'logit', calibrated: true });
    if (i.interval.kind !== 't') return;
    expect(i.interval.high).toBeLessThan(1);
    expect(i.estimate - i.interval.low).toBeGreaterThan(2 * (i.interval.high - i.estimate));
  });

  it('a difference near +1 stays inside [-1, 1], asymmetric the same way (logit of (1 + D)/2)', () => {
    const cells = [0, 0, 1, 0, 2, 0].flatMap((lost, i) => pair(1, i + 1, { 1: [20, 20 - lost] }, { 1: 0 }));
    const d = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!.difference!;
    expect(d.interval).toMatchObject({ kind: 't', scale: 'logit' });
    if (d.interval.kind !== 't') return;
    expect(d.interval.high).toBeLessThan(1);
    expect(d.estimate - d.interval.low).toBeGreaterThan(2 * (d.interval.high - d.estimate));
  });

  it('a cap whose pairs show no spread enters the pooled interval with its assumed error, and the pool says so', () => {
    const spread = [10, 9, 8, 10, 7].flatMap((surviving, i) => pair(1, i + 1, { 1: [10, surviving] }, { 1: 6 }));
    const flat = [1, 2, 3].flatMap((r) => pair(2, r, { 1: [10, 10] }, { 1: 6 }));
    const pooled = survivalStats({ pairing: 'shared', cells: [...spread, ...flat] }).pooled[0]!.gated!;
    expect(pooled.interval).toMatchObject({ kind: 't', scale: 'logit', assumedSpread: expect.closeTo(0.25 / Math.SQRT2, 12), calibrated: false, label: 'uncalibrated (3 pairs, assumed spread SD 0.177)' });
    // Without the substitution the flat cap would add nothing to the error: the measured figure is cap 1's alone, weighted.
    const alone = survivalStats({ pairing: 'shared', cells: spread }).caps[0]!.levels[0]!.gated!.interval;
    if (pooled.interval.kind !== 't' || alone.kind !== 't') throw new Error('expected intervals');
    expect(pooled.interval.standardError).toBeCloseTo((5 / 8) * alone.standardError, 12);
    // The working error: the flat cap enters with (high − low)/(2t) of its own assumed-spread interval.
    const own = survivalStats({ pairing: 'shared', cells: flat }).caps[0]!.levels[0]!.gated!.interval;
    if (own.kind !== 't') throw new Error('expected an interval');
    const working = Math.sqrt(((5 / 8) * alone.standardError) ** 2 + ((3 / 8) * (own.high - own.low) / (2 * own.tQuantile)) ** 2);
    const logit = (p: number) => Math.log(p / (1 - p));
    expect((logit(pooled.interval.high) - logit(pooled.interval.low)) / (2 * pooled.interval.tQuantile)).toBeCloseTo(working / (pooled.estimate * (1 - pooled.estimate)), 9);
    expect(working).toBeGreaterThan(1.1 * pooled.interval.standardError);
  });

  it('no interval has zero width, whatever the tallies: perfect, all lost, identical, tiny, mixed', () => {
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
    const shapes: Array<(claimed: number) => number> = [(c) => c, () => 0, (c) => c - 1, (c) => Math.floor(next() * (c + 1)), (c) => (next() < 0.8 ? c : c - 1)];
    let intervals = 0;
    for (let trial = 0; trial < 300; trial++) {
      const pairs = 2 + Math.floor(next() * 9);
      const [g, u] = [shapes[Math.floor(next() * shapes.length)]!, shapes[Math.floor(next() * shapes.length)]!];
      const claimed = 1 + Math.floor(next() * 3) * (next() < 0.5 ? 1 : 20);
      const cells = Array.from({ length: pairs }, (_, i) => pair(1 + (i % 2), i + 1, { 1: [claimed, g(claimed)] }, { 1: u(claimed) })).flat();
      const stats = survivalStats({ pairing: 'shared', cells }, { pairDifferenceSd: [0.01, 0.25, 1][trial % 3] });
      const all = [...stats.caps.flatMap((c) => c.levels.flatMap((l) => [l.gated, l.ungated, l.difference])), ...stats.pooled.flatMap((l) => [l.gated, l.ungated, l.difference])];
      for (const e of all) {
        if (!e || e.interval.kind !== 't') continue;
        intervals++;
        expect({ trial, positiveWidth: e.interval.high > e.interval.low, holdsEstimate: e.interval.low <= e.estimate && e.estimate <= e.interval.high }).toEqual({ trial, positiveWidth: true, holdsEstimate: true });
      }
    }
    expect(intervals).toBeGreaterThan(1000);
  });

  function numbers(value: unknown): number[] {
    if (typeof value === 'number') return [value];
    if (value && typeof value === 'object') return Object.values(value).flatMap(numbers);
    return [];
  }

  it('all survive (no spread), a level with no claims, a single cell: every number is finite', () => {
    const cells: CellTally[] = [
      ...pair(1, 1, { 0: [42, 42], 1: [0, 0] }, { 0: 42, 1: 0 }),
      ...pair(1, 2, { 0: [42, 42] }, { 0: 42 }),
      { cap: 4, repetition: 1, arm: 'ungated', levels: [{ level: 3, claimed: 5, surviving: 1 }] },
    ];
    const stats = survivalStats({ pairing: 'shared', cells });
    expect(numbers(stats).every(Number.isFinite)).toBe(true);
    expect(stats.caps[0]!.levels.map((l) => l.level)).toEqual([0]);
    expect(stats.caps[0]!.levels[0]!.gated!.interval).toMatchObject({ kind: 't', high: 1, standardError: 0, scale: 'score', label: 'uncalibrated (2 pairs, assumed spread SD 0.177)' });
    expect(stats.caps[0]!.levels[0]!.difference!.interval).toMatchObject({ kind: 't', standardError: 0, assumedSpread: 0.25, label: 'uncalibrated (2 pairs, assumed spread SD 0.250)' });
    expect(stats.caps[1]!.levels[0]).toMatchObject({ gated: null, difference: null, ungated: { interval: { kind: 'none', reason: '1 pair' } } });
  });

  it('keeps an interval inside the range of what it estimates', () => {
    const cells = [10, 10, 10, 4].flatMap((surviving, i) => pair(1, i + 1, { 1: [10, surviving] }, { 1: 10 - surviving }));
    const l = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!;
    for (const e of [l.gated!, l.difference!]) expect(e.interval.kind === 't' && e.interval.low > -1 && e.interval.high < 1).toBe(true);
    expect(l.difference!.interval).toMatchObject({ label: 'uncalibrated (4 pairs)' });
  });

  it('an empty sweep gives empty tables, not zeros', () => {
    expect(survivalStats({ pairing: 'shared', cells: [] })).toEqual({ estimator: 'cluster-ratio', confidence: 0.95, pairing: 'shared', caps: [], pooled: [] });
  });
});

describe('input is checked', () => {
  it('refuses a shared-pairing sweep whose arms disagree on claims, naming the pair, the level and the fix', () => {
    const cells = pair(2, 1, { 1: [12, 11] }, { 1: 9 });
    cells[1]!.levels[0]!.claimed = 11;
    expect(() => survivalStats({ pairing: 'shared', cells })).toThrowErrorMatchingInlineSnapshot(`[SurvivalDataInvalidError: survival tallies: cells[0].levels: under shared pairing both arms of cap2-rep1 grade one tree, but at level 1 gated claims 12 and ungated 11; fix the tallies or declare pairing: independent]`);
    expect(() => survivalStats({ pairing: 'independent', cells })).not.toThrow();
  });

  it('refuses more survivors than claims, duplicate cells and duplicate levels', () => {
    const over: CellTally = { cap: 1, repetition: 1, arm: 'gated', levels: [{ level: 0, claimed: 3, surviving: 4 }] };
    expect(() => survivalStats({ pairing: 'shared', cells: [over] })).toThrow(/surviving cannot exceed claimed/);
    const ok: CellTally = { cap: 1, repetition: 1, arm: 'gated', levels: [{ level: 0, claimed: 3, surviving: 2 }] };
    expect(() => survivalStats({ pairing: 'shared', cells: [ok, ok] })).toThrow(/cell cap1-rep1-gated appears twice/);
    expect(() => survivalStats({ pairing: 'shared', cells: [{ ...ok, levels: [...ok.levels, ...ok.levels] }] })).toThrow(/level 0 appears twice/);
  });

  it('independent pairing: each arm its own claims, the difference is R̂_gated − R̂_ungated over the pairs', () => {
    const cells: CellTally[] = [
      { cap: 2, repetition: 1, arm: 'gated', levels: [{ level: 1, claimed: 10, surviving: 9 }] },
      { cap: 2, repetition: 1, arm: 'ungated', levels: [{ level: 1, claimed: 6, surviving: 3 }] },
      { cap: 2, repetition: 2, arm: 'gated', levels: [{ level: 1, claimed: 8, surviving: 6 }] },
      { cap: 2, repetition: 2, arm: 'ungated', levels: [{ level: 1, claimed: 12, surviving: 9 }] },
    ];
    const l = survivalStats({ pairing: 'independent', cells }).caps[0]!.levels[0]!;
    expect(l.difference!.estimate).toBeCloseTo(15 / 18 - 12 / 18, 15);
    expect(l.difference!.interval).toMatchObject({ kind: 't', df: 1, label: 'uncalibrated (2 pairs)' });
  });

  it('a lower confidence gives a narrower interval', () => {
    const cells = SWEEP.filter((c) => c.cap === 2);
    const width = (confidence: number) => {
      const i = survivalStats({ pairing: 'shared', cells }, { confidence }).caps[0]!.levels[0]!.gated!.interval;
      return i.kind === 't' ? i.high - i.low : Number.NaN;
    };
    expect(width(0.8)).toBeLessThan(width(0.95));
  });
});

describe("the report passes the manifest's declared spread through", () => {
  it('survivalSection: pairs with no spread assume the declared figure, in the per-level rows and the cap curve', async () => {
    const cells = [1, 2, 3].flatMap((r) => pair(1, r, { 1: [20, 20] }, { 1: 15 + r }));
    const lowOf = (sd?: number) => {
      const section = survivalSection(cells, 'shared', 0.95, null, sd);
      const [row, curve] = [section.byCap[0]!.gated!.interval, section.capCurve[0]!.gated!.interval];
      if (row.kind !== 't' || curve.kind !== 't') throw new Error('expected intervals');
      expect(row.assumedSpread).toBe(curve.assumedSpread);
      return { low: row.low, spread: row.assumedSpread };
    };
    expect(lowOf()).toEqual(lowOf(0.25));
    expect(lowOf(0.05).spread).toBeCloseTo(0.05 / Math.SQRT2, 12);
    expect(lowOf(0.05).low).toBeGreaterThan(lowOf().low);
  });
});
