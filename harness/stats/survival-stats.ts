import { z } from 'zod';
import { ProblemListError } from '../internal/problem-list-error.js';
import { pathText, schemaProblems } from '../internal/schema-problems.js';
import { Arm, ARMS, DEFAULT_PAIR_DIFFERENCE_SD } from '../manifest/manifest.js';
import { clusterStandardError, pairedDifference, ratioEstimate, type Cluster, type LinearizedEstimate } from './cluster-ratio.js';
import { Interval, boundedInterval, impliedStandardError, type Quantity } from './interval.js';
import { stratify } from './stratified.js';

/**
 * Survival by achieved level, per cap and arm, the paired gated − ungated difference, and both
 * pooled over caps. The unit is the cell (per arm) or the pair (for the difference), never the
 * leaf. See harness/stats/index.ts for the choices and why.
 */

export const Pairing = z
  .enum(['shared', 'independent'])
  .describe('`shared`: both arms of a (cap, repetition) pair grade one planned tree and its built leaves, so they have the same claims at every level. `independent`: each arm planned its own tree.');
export type Pairing = z.infer<typeof Pairing>;

const Count = z.number().int().min(0);

export const LevelTally = z
  .object({
    level: z.number().int().min(0).describe("The depth index the leaves sat at in their tree (root = 0), never the cap."),
    claimed: Count.describe('Resolved requirement claims from delivered leaves at this level (the denominator).'),
    surviving: Count.describe('Of those, the claims whose requirement passes in the graded root tree.'),
  })
  .refine((t) => t.surviving <= t.claimed, { message: 'surviving cannot exceed claimed', path: ['surviving'] });
export type LevelTally = z.infer<typeof LevelTally>;

export const CellTally = z
  .object({
    cap: z.number().int().min(1),
    repetition: z.number().int().min(1).describe('1-based, as in cell ids (cap3-rep2-gated).'),
    arm: Arm,
    levels: z.array(LevelTally).describe('One entry per level the cell has leaves at; a level with no claims may be left out.'),
  })
  .superRefine((cell, ctx) => {
    const seen = new Set<number>();
    cell.levels.forEach((t, i) => {
      if (seen.has(t.level)) ctx.addIssue({ code: 'custom', path: ['levels', i, 'level'], message: `level ${t.level} appears twice; give one tally per level` });
      seen.add(t.level);
    });
  });
export type CellTally = z.infer<typeof CellTally>;

const cellKey = (c: { cap: number; repetition: number; arm: string }) => `cap${c.cap}-rep${c.repetition}-${c.arm}`;

function claimsByLevel(cell: CellTally): Map<number, number> {
  return new Map(cell.levels.filter((t) => t.claimed > 0).map((t) => [t.level, t.claimed]));
}

export const SurvivalData = z
  .object({
    pairing: Pairing,
    cells: z.array(CellTally).describe('Every measured cell; unavailable or unmeasured cells are simply absent.'),
  })
  .superRefine((data, ctx) => {
    const byKey = new Map<string, CellTally>();
    data.cells.forEach((cell, i) => {
      const key = cellKey(cell);
      if (byKey.has(key)) ctx.addIssue({ code: 'custom', path: ['cells', i], message: `cell ${key} appears twice; give one tally per cell` });
      byKey.set(key, cell);
    });
    if (data.pairing !== 'shared') return;
    // Shared pairing grades one tree per pair, so the arms' claims must agree: a mismatch means
    // the tallies do not come from a shared-pairing sweep, and the difference would be wrong.
    data.cells.forEach((cell, i) => {
      if (cell.arm !== 'gated') return;
      const other = byKey.get(cellKey({ ...cell, arm: 'ungated' }));
      if (!other) return;
      const [a, b] = [claimsByLevel(cell), claimsByLevel(other)];
      const levels = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => x - y);
      const differs = levels.find((l) => a.get(l) !== b.get(l));
      if (differs !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['cells', i, 'levels'],
          message: `under shared pairing both arms of cap${cell.cap}-rep${cell.repetition} grade one tree, but at level ${differs} gated claims ${a.get(differs) ?? 0} and ungated ${b.get(differs) ?? 0}; fix the tallies or declare pairing: independent`,
        });
      }
    });
  });
export type SurvivalData = z.input<typeof SurvivalData>;

/** Tallies that cannot come from a sweep: one line per problem, each naming the field. */
export class SurvivalDataInvalidError extends ProblemListError {
  readonly code = 'survival_data_invalid';
}

export const SurvivalOptions = z.object({
  confidence: z.number().gt(0).lt(1).default(0.95).describe('Confidence level of every interval. Default 0.95.'),
  pairDifferenceSd: z
    .number()
    .gt(0)
    .max(1)
    .default(DEFAULT_PAIR_DIFFERENCE_SD)
    .describe(
      `The manifest's declared SD of pair differences (\`analysis.pair_difference_sd\`, the figure \`harness plan\` sizes power with; pass \`pairDifferenceSdOf(manifest).sd\`). Used only where the pairs show no spread: the interval then assumes a per-pair spread of this /√2 per arm and this for the difference, and says so. Default ${DEFAULT_PAIR_DIFFERENCE_SD}, the manifest's own default.`,
    ),
});
export type SurvivalOptions = z.input<typeof SurvivalOptions>;

const ArmEstimate = z.object({
  /** Σ surviving / Σ claimed over the cells with claims at this level. */
  estimate: z.number(),
  /** Cells with claims at this level: the n of the interval. */
  pairs: z.number().int(),
  claimed: z.number().int(),
  surviving: z.number().int(),
  interval: Interval,
});
export type ArmEstimate = z.infer<typeof ArmEstimate>;

const DifferenceEstimate = z.object({
  /** R̂_gated − R̂_ungated over the complete pairs with claims at this level. */
  estimate: z.number(),
  pairs: z.number().int(),
  /** Cells with claims at this level whose other arm was not measured: left out of the difference. */
  unpairedCells: z.number().int(),
  interval: Interval,
});
export type DifferenceEstimate = z.infer<typeof DifferenceEstimate>;

const CapLevel = z.object({ level: z.number().int(), gated: ArmEstimate.nullable(), ungated: ArmEstimate.nullable(), difference: DifferenceEstimate.nullable() });

const CapStats = z.object({
  cap: z.number().int(),
  /** Cells measured at this cap, per arm. */
  cells: z.object({ gated: z.number().int(), ungated: z.number().int() }),
  levels: z.array(CapLevel),
});
export type CapStats = z.infer<typeof CapStats>;

const PooledEstimate = z.object({
  estimate: z.number(),
  interval: Interval,
  /** The caps the estimate pools, each with its pairs at this level and its weight (pairs / total). */
  strata: z.array(z.object({ cap: z.number().int(), pairs: z.number().int(), weight: z.number() })),
  /** Caps with claims at this level left out of the pooled interval, and why. */
  excluded: z.array(z.object({ cap: z.number().int(), pairs: z.number().int(), reason: z.string() })),
});
export type PooledEstimate = z.infer<typeof PooledEstimate>;

const PooledLevel = z.object({ level: z.number().int(), gated: PooledEstimate.nullable(), ungated: PooledEstimate.nullable(), difference: PooledEstimate.nullable() });

export const SurvivalStats = z.object({
  estimator: z.literal('cluster-ratio').describe('Σ surviving / Σ claimed over cells, cluster-linearized standard error, t(n−1) within a cap, Satterthwaite when pooled.'),
  confidence: z.number(),
  pairing: Pairing,
  caps: z.array(CapStats),
  pooled: z.array(PooledLevel),
});
export type SurvivalStats = z.infer<typeof SurvivalStats>;

interface Estimated {
  estimate: number;
  pairs: number;
  interval: Interval;
  standardError: number | null;
}

/** A standard error below this is the rounding remainder of pairs that do not differ: no spread. */
const NO_SPREAD_BELOW = 1e-12;

interface IntervalSettings {
  confidence: number;
  pairDifferenceSd: number;
}

function withInterval(linear: LinearizedEstimate, settings: IntervalSettings, quantity: Quantity): Estimated {
  const pairs = linear.influence.length;
  if (pairs < 2) return { estimate: linear.estimate, pairs, interval: { kind: 'none', reason: '1 pair' }, standardError: null };
  // Identical pairs leave a rounding remainder (1e-18, not 0) in the influence values; any real
  // spread is at least one claim in a sweep's claims, far above this.
  const computed = clusterStandardError(linear.influence);
  const standardError = computed < NO_SPREAD_BELOW ? 0 : computed;
  return { estimate: linear.estimate, pairs, standardError, interval: boundedInterval({ quantity, estimate: linear.estimate, standardError, df: pairs - 1, pairs, calibrationPairs: pairs, ...settings }) };
}

const NO_CLAIMS: Cluster = { surviving: 0, claimed: 0 };

function clusterAt(cell: CellTally | undefined, level: number): Cluster | undefined {
  if (!cell) return undefined;
  const tally = cell.levels.find((t) => t.level === level);
  return tally ? { surviving: tally.surviving, claimed: tally.claimed } : NO_CLAIMS;
}

interface CapWork {
  cap: number;
  levels: Map<number, Record<Arm | 'difference', Estimated | null>>;
}

function analyseCap(cap: number, cells: CellTally[], settings: IntervalSettings): { stats: CapStats; work: CapWork } {
  const byRepetition = new Map<number, Partial<Record<Arm, CellTally>>>();
  for (const cell of cells) byRepetition.set(cell.repetition, { ...byRepetition.get(cell.repetition), [cell.arm]: cell });
  const repetitions = [...byRepetition.keys()].sort((a, b) => a - b);
  const levels = [...new Set(cells.flatMap((c) => c.levels.filter((t) => t.claimed > 0).map((t) => t.level)))].sort((a, b) => a - b);
  const work: CapWork = { cap, levels: new Map() };
  const rows = levels.map((level) => {
    const arms = {} as Record<Arm, ArmEstimate | null>;
    const kept = {} as Record<Arm | 'difference', Estimated | null>;
    for (const arm of ARMS) {
      const clusters = repetitions.map((r) => clusterAt(byRepetition.get(r)?.[arm], level)).filter((c): c is Cluster => c !== undefined && c.claimed > 0);
      if (clusters.length === 0) {
        arms[arm] = kept[arm] = null;
        continue;
      }
      const est = withInterval(ratioEstimate(clusters), settings, 'survival');
      kept[arm] = est;
      arms[arm] = { estimate: est.estimate, pairs: est.pairs, claimed: clusters.reduce((s, c) => s + c.claimed, 0), surviving: clusters.reduce((s, c) => s + c.surviving, 0), interval: est.interval };
    }
    const pairs: Array<{ gated: Cluster; ungated: Cluster }> = [];
    let unpairedCells = 0;
    for (const r of repetitions) {
      const gated = clusterAt(byRepetition.get(r)?.gated, level);
      const ungated = clusterAt(byRepetition.get(r)?.ungated, level);
      if (gated && ungated) {
        if (gated.claimed + ungated.claimed > 0) pairs.push({ gated, ungated });
      } else if ((gated ?? ungated)!.claimed > 0) unpairedCells++;
    }
    const bothClaimed = pairs.some((p) => p.gated.claimed > 0) && pairs.some((p) => p.ungated.claimed > 0);
    const difference = bothClaimed ? withInterval(pairedDifference(pairs), settings, 'difference') : null;
    kept.difference = difference;
    work.levels.set(level, kept);
    return {
      level,
      gated: arms.gated,
      ungated: arms.ungated,
      difference: difference && { estimate: difference.estimate, pairs: difference.pairs, unpairedCells, interval: difference.interval },
    };
  });
  const count = (arm: Arm) => cells.filter((c) => c.arm === arm).length;
  return { stats: { cap, cells: { gated: count('gated'), ungated: count('ungated') }, levels: rows }, work };
}

function pool(entries: Array<{ cap: number; est: Estimated }>, settings: IntervalSettings, quantity: Quantity): PooledEstimate | null {
  if (entries.length === 0) return null;
  const included = entries.filter((e) => e.est.standardError !== null);
  const excluded = entries.filter((e) => e.est.standardError === null).map((e) => ({ cap: e.cap, pairs: e.est.pairs, reason: '1 pair: no standard error' }));
  if (included.length === 0) {
    // Only single-pair caps: a pair-weighted point estimate over them, and no interval.
    const total = entries.reduce((s, e) => s + e.est.pairs, 0);
    const strata = entries.map((e) => ({ cap: e.cap, pairs: e.est.pairs, weight: e.est.pairs / total }));
    return { estimate: entries.reduce((s, e, i) => s + strata[i]!.weight * e.est.estimate, 0), interval: { kind: 'none', reason: 'no cap has 2 pairs at this level' }, strata, excluded: [] };
  }
  // The measured error pools the strata's measured errors; the working one lets a stratum
  // without spread enter with the error its own assumed-spread interval implies, so that one
  // cap's identical pairs cannot shrink the pooled interval to the others' spread alone.
  const measured = stratify(included.map((e) => ({ estimate: e.est.estimate, standardError: e.est.standardError!, pairs: e.est.pairs })));
  const working = (e: (typeof included)[number]) => (e.est.standardError! > 0 || e.est.interval.kind !== 't' ? e.est.standardError! : impliedStandardError(e.est.interval));
  const partlyAssumed = included.some((e) => e.est.standardError === 0);
  const pooled = partlyAssumed ? stratify(included.map((e) => ({ estimate: e.est.estimate, standardError: working(e), pairs: e.est.pairs }))) : measured;
  const smallest = Math.min(...included.map((e) => e.est.pairs));
  const pairs = included.reduce((n, e) => n + e.est.pairs, 0);
  return {
    estimate: pooled.estimate,
    interval: boundedInterval({
      quantity,
      estimate: pooled.estimate,
      standardError: measured.standardError,
      workingStandardError: Math.max(pooled.standardError, measured.standardError),
      df: pooled.df,
      pairs,
      calibrationPairs: smallest,
      partlyAssumed,
      ...settings,
    }),
    strata: included.map((e, i) => ({ cap: e.cap, pairs: e.est.pairs, weight: pooled.weights[i]! })),
    excluded,
  };
}

function parseData(input: SurvivalData): z.infer<typeof SurvivalData> {
  const parsed = SurvivalData.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new SurvivalDataInvalidError(
    schemaProblems(parsed.error, SurvivalData, input).map((p) => `survival tallies: ${pathText(p.path)}: ${p.text}`),
    { cause: parsed.error },
  );
}

/**
 * Survival per achieved level: within each cap, per arm (cells as clusters) and as the paired
 * difference gated − ungated (pairs (cap, repetition) as clusters), each with a t interval
 * from the cluster-linearized standard error on n − 1 df; then pooled over caps (strata
 * weighted by pairs, Satterthwaite df). 1 pair: no interval. Under 5: labelled
 * "uncalibrated (n pairs)". Malformed tallies throw `SurvivalDataInvalidError`; a bad
 * option throws a ZodError (a caller's bug, not data).
 */
export function survivalStats(input: SurvivalData, options: SurvivalOptions = {}): SurvivalStats {
  const data = parseData(input);
  const settings: IntervalSettings = SurvivalOptions.parse(options);
  const { confidence } = settings;
  const caps = [...new Set(data.cells.map((c) => c.cap))].sort((a, b) => a - b);
  const analysed = caps.map((cap) => analyseCap(cap, data.cells.filter((c) => c.cap === cap), settings));
  const levels = [...new Set(analysed.flatMap((a) => [...a.work.levels.keys()]))].sort((a, b) => a - b);
  const pooled = levels.map((level) => {
    const entriesFor = (key: Arm | 'difference') =>
      analysed.flatMap(({ work }) => {
        const est = work.levels.get(level)?.[key];
        return est ? [{ cap: work.cap, est }] : [];
      });
    return {
      level,
      gated: pool(entriesFor('gated'), settings, 'survival'),
      ungated: pool(entriesFor('ungated'), settings, 'survival'),
      difference: pool(entriesFor('difference'), settings, 'difference'),
    };
  });
  // Parsing the result is the guarantee that no NaN or infinity leaves this module.
  return SurvivalStats.parse({ estimator: 'cluster-ratio', confidence, pairing: data.pairing, caps: analysed.map((a) => a.stats), pooled });
}
