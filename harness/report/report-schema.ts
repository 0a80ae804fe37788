import { z } from 'zod';
import { Arm } from '../manifest/manifest.js';
import { CostModel, Forecast } from '../plan/forecast.js';
import { SimParams } from '../sim/sim-params.js';
import { Interval } from '../stats/interval.js';
import { Spend } from '../journal/cell-measurement.js';
import { CacheShare } from '../journal/cache-share-schema.js';
import { Hypothesis } from '../manifest/hypothesis.js';
import { MergeDecay } from './merge-decay-schema.js';
import { BeyondClaims } from './beyond-claims.js';
import { ClaimRow } from './claim-schema.js';
import { Look } from '../journal/look-taken.js';

/**
 * report.json: everything the report of one sweep says, as data. `harness report` writes it;
 * report.md, the charts and the results site's sweep pages are all renderings of it. zod only
 * (no files, no engine), so the site can import it. A change that renames or removes a field
 * takes a new `version`.
 *
 * Every number is finite: zod 4 refuses NaN and ±Infinity, and the report is parsed with this
 * schema before anything is written. A figure that does not exist is null, with the reason
 * beside it where a reader needs one.
 */

export const REPORT_VERSION = 1;

const Int = z.int();
const Count = z.int().nonnegative();
const Share = z.number().min(0).max(1);

/** The planted expectation of a figure (simulated sweeps: the closed form); null for a real sweep or where the closed form has none. */
const Truth = z.number().nullable();

/** One arm's survival within a cap: Σ surviving / Σ claimed over its cells, the cells being the clusters. */
export const ArmFigure = z.object({
  estimate: Share,
  /** Cells with claims at this level: the n of the interval. */
  pairs: Count,
  claimed: Count,
  surviving: Count,
  interval: Interval,
  truth: Truth,
});
export type ArmFigure = z.infer<typeof ArmFigure>;

/** gated − ungated over the pairs (cap, repetition) with claims at this level. */
export const DifferenceFigure = z.object({
  estimate: z.number().min(-1).max(1),
  pairs: Count,
  /** Cells with claims whose other arm was not measured: left out of the difference. */
  unpairedCells: Count,
  interval: Interval,
  truth: Truth,
});
export type DifferenceFigure = z.infer<typeof DifferenceFigure>;

/** Pooled over caps: strata weighted by pairs, Satterthwaite degrees of freedom. */
export const PooledFigure = z.object({
  estimate: z.number().min(-1).max(1),
  interval: Interval,
  strata: z.array(z.object({ cap: Int, pairs: Count, weight: Share })),
  excluded: z.array(z.object({ cap: Int, pairs: Count, reason: z.string() })),
  /** The same weighted sum of the caps' planted truths. */
  truth: Truth,
});
export type PooledFigure = z.infer<typeof PooledFigure>;

export const LevelRow = z.object({ cap: Int, level: Count, gated: ArmFigure.nullable(), ungated: ArmFigure.nullable(), difference: DifferenceFigure.nullable() });
export type LevelRow = z.infer<typeof LevelRow>;
export const PooledRow = z.object({ level: Count, gated: PooledFigure.nullable(), ungated: PooledFigure.nullable(), difference: PooledFigure.nullable() });
export type PooledRow = z.infer<typeof PooledRow>;
/** The cap curve: every level of a cell pooled, per cap. */
export const CapRow = z.object({ cap: Int, gated: ArmFigure.nullable(), ungated: ArmFigure.nullable(), difference: DifferenceFigure.nullable() });
export type CapRow = z.infer<typeof CapRow>;

export const CellRowStatus = z.enum(['measured', 'unavailable', 'unmeasured', 'interrupted', 'not_recorded']);
export type CellRowStatus = z.infer<typeof CellRowStatus>;

export const CellResult = z.object({
  claimed: Count,
  surviving: Count,
  /** surviving / claimed; null when no delivered leaf made a resolved claim. */
  survival: Share.nullable(),
  levels: z.array(z.object({ level: Count, claimed: Count, surviving: Count })),
  deepestLevel: Count,
  specPassing: Count,
  specTotal: z.int().positive(),
  specFraction: Share,
  testsCarried: Count,
  leaves: Count,
  leavesNotDelivered: Count,
  claimsDropped: Count,
  escalations: Count,
});
export type CellResult = z.infer<typeof CellResult>;

export const CellRow = z.object({
  id: z.string(),
  cap: Int,
  arm: Arm,
  repetition: Int,
  status: CellRowStatus,
  /** Why a cell has no measurement, in one line; null when measured. */
  reason: z.string().nullable(),
  /** Per-cell figures carry no interval: a leaf-level binomial interval would be the naive one. */
  result: CellResult.nullable(),
  /** Sessions that served this cell (under shared pairing its pair's shared phase too). */
  spend: Spend,
});
export type CellRow = z.infer<typeof CellRow>;

export const DepthBin = z.object({
  cap: Int,
  arm: Arm,
  deepestLevel: Count,
  cells: Count,
  /** Cells expected at this depth from the planted tree-shape distribution (simulated sweeps). */
  expected: z.number().nonnegative().nullable(),
});
export type DepthBin = z.infer<typeof DepthBin>;

const PerCell = z.object({ sessions: z.number().nonnegative(), tokens: z.object({ input: z.number().nonnegative(), cached: z.number().nonnegative(), output: z.number().nonnegative() }), costUsd: z.number().nonnegative().nullable() });

export const CostRow = z.object({
  cap: Int,
  measuredCells: Count,
  /** Pairs with a measured cell: under shared pairing their planning and leaves are paid once. */
  pairs: Count,
  actual: Spend,
  perCell: PerCell.nullable(),
  /** Spend on this cap's cells that produced no measurement (unavailable, stopped, interrupted): paid, never dropped. */
  unmeasured: Spend,
  /**
   * `harness plan`'s bill for the measured cells (under shared pairing a pair's planning and leaves
   * once, as `actual` counts them): every tree uses its whole cap at projected_branching (a
   * scenario), or, with `bound`, at the manifest's max_children (the bound the engine enforces).
   */
  declared: z.object({ branching: z.number().gt(1), sessions: z.number().nonnegative(), bound: z.literal(true).optional() }),
  /** The forecast `plan --from` would have made for the measured cells from the caps recorded below this one; null for the shallowest. */
  forecast: z.object({ fromCaps: z.array(Int), model: CostModel, figures: Forecast, actualOverForecast: z.number().nonnegative().nullable() }).nullable(),
  actualOverDeclared: z.number().nonnegative().nullable(),
});
export type CostRow = z.infer<typeof CostRow>;

export const JudgeRow = z.object({
  reviewer: z.object({ model: z.string(), family: z.string().nullable() }),
  /** The families that produced work in the reviewed subtrees, sorted, comma-separated. */
  contributors: z.string(),
  relation: z.enum(['independent', 'self', 'unknown']),
  reviews: Count,
});

export const IndependenceAudit = z.object({
  gatedMerges: Count,
  /** Gated merges every review of which came from a family that contributed nothing. */
  independentMerges: Count,
  /** independentMerges / gatedMerges; must be 1. Null with no gated merge. */
  share: Share.nullable(),
  judges: z.array(JudgeRow),
  /** Every gated merge not judged independently, and why. */
  exceptions: z.array(z.object({ cellId: z.string(), nodePath: z.string(), reason: z.string() })),
  /** The ungated arm's self-reviews (by design not independent; their verdicts are not used). */
  selfReviews: z.object({ merges: Count, reviews: Count, reviewers: z.array(JudgeRow) }),
});
export type IndependenceAudit = z.infer<typeof IndependenceAudit>;

export const Caveat = z.object({
  kind: z.enum(['simulated', 'same_family', 'ceiling', 'quota', 'code_changed', 'recorded', 'interrupted', 'incomplete', 'independence', 'unpriced', 'escalations', 'uncalibrated', 'unpaired', 'cut_short', 'worst_case_charges', 'unreachable', 'estimated_usage', 'timed_out', 'no_claims']),
  text: z.string(),
});
export type Caveat = z.infer<typeof Caveat>;

export const ChartEntry = z.object({
  name: z.string(),
  title: z.string(),
  /** Paths relative to report/. */
  spec: z.string(),
  svg: z.string(),
});
export type ChartEntry = z.infer<typeof ChartEntry>;

/** The three rulings a pre-registered comparison can get; there is no other wording. */
export const RulingWord = z.enum(['SUPPORTED', 'NOT SUPPORTED', 'INCONCLUSIVE']);
export type RulingWord = z.infer<typeof RulingWord>;

/** One comparison of the manifest's hypothesis, ruled on from its (1 − alpha) interval. */
export const RulingComparison = z.object({
  /** "level 2" or "levels >= 1". */
  comparison: z.string(),
  role: z.enum(['primary', 'secondary']),
  /** The level its interval is read at: the hypothesis's alpha (primary), its Holm-adjusted alpha (secondary). */
  alpha: Share,
  /** gated − ungated, pooled over caps (and over the levels, for levels >= K); null when no complete pair has claims there. */
  estimate: z.number().min(-1).max(1).nullable(),
  pairs: Count,
  /** Two-sided p-value of no difference behind the interval (what Holm ranks by); null without an interval. */
  pValue: Share.nullable(),
  interval: Interval.nullable(),
  ruling: RulingWord,
  /**
   * Under a sequential design (primary only): the look whose ruling this is, e.g. "look 2 of 3:
   * STOP: SUPPORTED", or "no look taken yet" (then INCONCLUSIVE). Absent otherwise.
   */
  ruledAt: z.string().optional(),
});
export type RulingComparison = z.infer<typeof RulingComparison>;

/** The pre-registered ruling; absent from the report when neither the manifest nor the journal names a hypothesis. */
export const RulingSection = z.object({
  /** `not pre-registered`: the journal's header does not pin the manifest's hypothesis as written; then no comparison is ruled on. */
  registration: z.enum(['pre-registered', 'not pre-registered']),
  why: z.string().nullable(),
  hypothesis: Hypothesis.nullable(),
  comparisons: z.array(RulingComparison),
  /** Every look `harness report --look` journalled, in order (absent when none was taken). Plain `report` never takes one. */
  looks: z.array(Look).optional(),
  /** REPEATED LOOKS, NOT ADJUSTED: without a sequential design, this ruling reads more cells than an earlier look did. Absent otherwise. */
  caveat: z.string().optional(),
});
export type RulingSection = z.infer<typeof RulingSection>;

const PairText = z.object({ provider: z.string(), model: z.string(), realModel: z.string(), family: z.string().nullable(), rung: Int });

export const Report = z.object({
  version: z.literal(REPORT_VERSION),
  sweep: z.object({
    name: z.string(),
    /** The run folder's name (never an absolute path). */
    run: z.string(),
    /** Time of the journal's last event: the report is of the sweep as of then. */
    asOf: z.string(),
    journalEvents: Count,
    manifestSha256: z.string(),
    harnessVersion: z.string(),
    code: z.object({ commit: z.string().nullable(), dirty: z.boolean().nullable() }),
  }),
  /** SIMULATED sweeps: the planted parameters and how the truth was computed; null for real providers. */
  simulated: z
    .object({
      /** Null when the journal's pinned parameters do not parse: the run is still SIMULATED, and no truth is shown. */
      planted: SimParams.nullable(),
      /** The planted parameters in one line, as every artifact shows them. */
      text: z.string(),
      truth: z.string(),
    })
    .nullable(),
  design: z.object({
    spec: z.string(),
    caps: z.array(Int),
    arms: z.array(Arm),
    repetitions: z.array(z.object({ cap: Int, repetitions: Count })),
    recordedCaps: z.array(Int),
    mergeAttempts: Int,
    pairing: z.enum(['shared', 'independent']),
    independence: z.enum(['cross_family', 'same_family']),
    executor: PairText,
    reviewer: PairText,
    maxSessions: Int,
    projectedBranching: z.number(),
  }),
  stop: z.object({ reason: z.string(), detail: z.string() }).nullable(),
  caveats: z.array(Caveat),
  counts: z.object({
    cells: z.object({ design: Count, measured: Count, unavailable: Count, unmeasured: Count, interrupted: Count, notRecorded: Count }),
    leaves: Count,
    leavesNotDelivered: Count,
    claimsDropped: Count,
    escalations: Count,
    /** Measured cells that delivered no claim at all: nothing of theirs is in any survival figure. */
    noClaims: z.array(z.string()),
    /** Measured cells whose pair's other arm was not measured: left out of every survival figure (both arms' curves and the difference use the same pairs). */
    unpaired: z.array(z.string()),
    unavailable: z.array(z.object({ id: z.string(), reason: z.string(), detail: z.string() })),
    unmeasured: z.array(z.string()),
    interrupted: z.array(z.string()),
  }),
  cells: z.array(CellRow),
  /** Every counted claim of every measured cell, survived or killed (claim-rows.ts): the unit of every survival figure, listed. */
  claims: z.array(ClaimRow),
  survival: z.object({
    estimator: z.literal('cluster-ratio'),
    confidence: Share,
    byCap: z.array(LevelRow),
    pooled: z.array(PooledRow),
    capCurve: z.array(CapRow),
  }),
  depth: z.array(DepthBin),
  cost: z.object({
    caps: z.array(CostRow),
    actual: Spend,
    unmeasured: Spend,
    /**
     * What the run paid, across every invocation, each live call once: the transcripts' response
     * lines (and errors' unreceived attempts) priced by the pinned roster (journal/paid.ts), the
     * figure `harness record` shows live and in summary.json. Sessions' spend above counts the
     * calls a resume answered from transcripts in the session that used them; this does not.
     * Absent: a report written before it was shown, or a journal without a pinned roster.
     */
    paid: z
      .object({
        usd: z.number().nonnegative(),
        calls: z.int().nonnegative(),
        unpricedCalls: z.int().nonnegative().describe('Live calls whose model has no price: not in usd (a figure with them reads unknown).'),
      })
      .optional(),
    /**
     * The share of input served from the provider's prompt cache, per role: over every call of
     * every finished session (the journal), and over each session's first call (the
     * transcripts; null when they were not read). Absent: a report written before it was shown.
     */
    cache: z.object({ byRole: z.array(CacheShare), firstCall: z.array(CacheShare).nullable() }).optional(),
  }),
  independence: IndependenceAudit,
  charts: z.array(ChartEntry),
  /** The manifest's `hypothesis:` ruled on; absent when there is none. */
  ruling: RulingSection.optional(),
  /** Survival merge by merge, when the sweep graded its merges (`grade_merges`); absent otherwise. */
  mergeDecay: MergeDecay.optional(),
  /** What leaves built beyond their claims, when the sweep graded its leaves (`grade_leaves`); absent otherwise. */
  beyondClaims: BeyondClaims.optional(),
  /**
   * The attribution and licence notice of each text the task's brief carries beside SPEC.md
   * (task.yaml `brief.sources`), which every published transcript of the run shows; absent
   * when the brief is SPEC.md alone.
   */
  licenceNotices: z.array(z.string().min(1)).min(1).optional(),
});
export type Report = z.infer<typeof Report>;
