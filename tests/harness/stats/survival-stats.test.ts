import { describe, expect, it } from 'vitest';
import { survivalStats, type CellTally, type SurvivalStats } from '../../../harness/index.js';

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
        "cap 2 L1 gated: 0.9041 n=6 [0.8189, 0.9893] df 5",
        "cap 2 L1 ungated: 0.7671 n=6 [0.7188, 0.8154] df 5",
        "cap 2 L1 difference: 0.137 n=6 [0.0373, 0.2367] df 5",
        "cap 2 L2 gated: 0.8889 n=3 [0.5669, 1] df 2 uncalibrated (3 pairs)",
        "cap 2 L2 ungated: 0.5556 n=3 [0.355, 0.7561] df 2 uncalibrated (3 pairs)",
        "cap 2 L2 difference: 0.3333 n=3 [0.1953, 0.4713] df 2 uncalibrated (3 pairs)",
        "cap 3 L1 gated: 0.9706 n=3 [0.8352, 1] df 2 uncalibrated (3 pairs)",
        "cap 3 L1 ungated: 0.8 n=2 [0.8, 0.8] df 1 uncalibrated (2 pairs, no spread)",
        "cap 3 L1 difference: 0.16 n=2 [-0.4499, 0.7699] df 1 uncalibrated (2 pairs)",
        "cap 3 L2 gated: 0.8182 n=2 [0.6082, 1] df 1 uncalibrated (2 pairs)",
        "cap 3 L2 ungated: 0.5909 n=2 [0.4859, 0.6959] df 1 uncalibrated (2 pairs)",
        "cap 3 L2 difference: 0.2273 n=2 [-0.0878, 0.5423] df 1 uncalibrated (2 pairs)",
        "cap 3 L3 gated: 0.6667 n=1 no interval (1 pair)",
        "cap 3 L3 ungated: 0.3333 n=1 no interval (1 pair)",
        "cap 3 L3 difference: 0.3333 n=1 no interval (1 pair)",
        "pooled L1 gated: 0.9263 [0.8678, 0.9847] df 6.6614 uncalibrated (3 pairs)",
        "pooled L1 ungated: 0.7753 [0.7391, 0.8116] df 5 uncalibrated (2 pairs)",
        "pooled L1 difference: 0.1427 [0.0657, 0.2198] df 5.9807 uncalibrated (2 pairs)",
        "pooled L2 gated: 0.8606 [0.6728, 1] df 2.0857 uncalibrated (2 pairs)",
        "pooled L2 ungated: 0.5697 [0.4516, 0.6878] df 2.0555 uncalibrated (2 pairs)",
        "pooled L2 difference: 0.2909 [0.2193, 0.3626] df 2.8073 uncalibrated (2 pairs)",
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
  it('never calls a zero-width interval calibrated, however many pairs agree', () => {
    const cells = [1, 2, 3, 4, 5, 6].flatMap((r) => pair(2, r, { 1: [10 + r, 10 + r] }, { 1: 9 + r }));
    const l = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!;
    expect(l.gated!.interval).toMatchObject({ low: 1, high: 1, calibrated: false, label: 'uncalibrated (6 pairs, no spread)' });
    expect(l.ungated!.interval).toMatchObject({ calibrated: true, label: null });
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
    expect(stats.caps[0]!.levels[0]!.gated!.interval).toMatchObject({ kind: 't', low: 1, high: 1, standardError: 0, label: 'uncalibrated (2 pairs, no spread)' });
    expect(stats.caps[1]!.levels[0]).toMatchObject({ gated: null, difference: null, ungated: { interval: { kind: 'none', reason: '1 pair' } } });
  });

  it('clips an interval to the range of what it estimates', () => {
    const cells = [10, 10, 10, 4].flatMap((surviving, i) => pair(1, i + 1, { 1: [10, surviving] }, { 1: 10 - surviving }));
    const l = survivalStats({ pairing: 'shared', cells }).caps[0]!.levels[0]!;
    expect(l.gated!.interval).toMatchObject({ high: 1 });
    expect(l.difference!.interval).toMatchObject({ high: 1, label: 'uncalibrated (4 pairs)' });
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
