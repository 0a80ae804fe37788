import { z } from 'zod';
import { SPENDING_FUNCTIONS } from '../manifest/hypothesis.js';
import { Interval } from '../stats/interval.js';

/**
 * One look at the pre-registered hypothesis, as `harness report --look` journals it: the only
 * thing that spends a look. Plain `report` and the site read looks, never take one. The
 * payload is the whole ruling as it was given (fraction, boundary, statistic, adjusted
 * interval, word), so a later look reads the fractions spent before it from the journal and
 * no look can be hidden or taken again. Journals from before looks existed simply hold none.
 */

const Count = z.int().nonnegative();
const Finite = z.number();

/**
 * What a look rules. Under a sequential design: STOP: SUPPORTED (efficacy boundary crossed and
 * the adjusted interval reaches δ), STOP: NOT SUPPORTED (the declared non-binding futility
 * boundary crossed, or the adjusted interval wholly below δ), CONTINUE, or, at the last look
 * only, STOP: INCONCLUSIVE (no boundary crossed and no look left). Without one (a plain look):
 * the fixed ruling's own words.
 */
export const LookRuling = z.enum(['STOP: SUPPORTED', 'STOP: NOT SUPPORTED', 'CONTINUE', 'STOP: INCONCLUSIVE', 'SUPPORTED', 'NOT SUPPORTED', 'INCONCLUSIVE']);
export type LookRuling = z.infer<typeof LookRuling>;

export const LookBoundary = z.strictObject({
  /** The efficacy boundary on the normal scale (two-sided, |Z| > z). */
  z: Finite,
  /** The same boundary on the t scale of the look's degrees of freedom: the t quantile of the same nominal p (small-sample correction). */
  t: Finite,
  /** Two-sided nominal p the boundary stands for: the adjusted interval is read at confidence 1 − nominalP. */
  nominalP: z.number().gt(0).lt(1),
  /** Alpha spent by this look, cumulative over the looks so far. */
  cumulativeAlpha: z.number().gt(0).max(1),
  /** True when this look spends what alpha was left (look K, or the fraction reached 1). */
  final: z.boolean(),
});
export type LookBoundary = z.infer<typeof LookBoundary>;

export const LookPayload = {
  /** 1 for the first look, in journal order. */
  look: z.int().positive(),
  /** The hypothesis's `sequential:` block, or null for a plain (unadjusted) look. */
  design: z.strictObject({ looks: z.int().positive(), spending: z.enum(SPENDING_FUNCTIONS), futility: z.boolean() }).nullable(),
  /** The primary comparison the look rules on, e.g. "levels >= 3". */
  comparison: z.string(),
  /**
   * Pairs of the primary comparison: complete pairs at caps deep enough (measured) over the
   * design's pairs there (planned); a pooled comparison counts each pair it pools once.
   * `withClaims`: the measured pairs that hold claims at those levels (the statistic's pairs).
   */
  pairs: z.strictObject({ measured: Count, planned: z.int().positive(), withClaims: Count }),
  /** Information fraction: measured / planned pairs, at most 1. */
  fraction: z.number().min(0).max(1),
  /** Complete measured cells the look read: a later ruling on more has added cells since. */
  cells: Count,
  /** The journal's last event the look read. */
  throughSeq: z.int().positive(),
  /** Null for a plain look (read at alpha). */
  boundary: LookBoundary.nullable(),
  /** The futility boundary (one-sided, Z below it), when declared and this is not the final look. */
  futility: z.strictObject({ z: Finite, t: Finite }).nullable(),
  /** gated − ungated, its measured standard error, the paired t (null when the pairs show no spread) and its degrees of freedom. Null when no pair holds claims there. */
  statistic: z.strictObject({ estimate: z.number().min(-1).max(1), standardError: z.number().nonnegative(), t: Finite.nullable(), df: z.number().positive() }).nullable(),
  /** The repeated-confidence interval (at 1 − nominalP), or the (1 − alpha) interval of a plain look; null without one. */
  interval: Interval.nullable(),
  ruling: LookRuling,
  /** REPEATED LOOKS, NOT ADJUSTED when a plain look follows an earlier one on more cells; else null. */
  caveat: z.string().nullable(),
};

/** The look as data (what report.json lists), without the journal envelope. */
export const Look = z.strictObject({ ...LookPayload, seq: z.int().positive(), at: z.iso.datetime() });
export type Look = z.infer<typeof Look>;
