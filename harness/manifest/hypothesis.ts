import { z } from 'zod';

/**
 * The manifest's `hypothesis:` block: a ruling declared before any cell is recorded. One primary
 * comparison, optional secondaries (Holm-adjusted), the smallest difference that matters, the
 * significance level and the power wanted. `harness plan` judges whether the design can detect
 * the difference (power judges the plan); `harness report` rules on each comparison from its
 * interval alone (power never enters a ruling). Data only: no imports beyond zod.
 *
 * Level 0 (a root that executes) has no merge, so under shared pairing both arms grade the same
 * leaves there and their difference is 0 by design; no comparison may include it.
 */

/** One comparison: gated − ungated at one achieved level (pooled over caps), or pooled over every level from `levels_from` down. */
export const Comparison = z
  .object({
    level: z
      .int()
      .min(1, 'must be at least 1 (level 0 has no merge, so both arms are identical there by design)')
      .optional()
      .describe('gated − ungated survival at this achieved level (root = 0), pooled over caps. At least 1. No default: give exactly one of level and levels_from.')
      .meta({ examples: [2] }),
    levels_from: z
      .int()
      .min(1, 'must be at least 1 (level 0 has no merge, so both arms are identical there by design)')
      .optional()
      .describe('gated − ungated survival pooled over every achieved level >= this one (each pair\'s claims at those levels summed; pairs are the clusters), and over caps. At least 1. No default: give exactly one of level and levels_from.')
      .meta({ examples: [1] }),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.level === undefined && c.levels_from === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'names no comparison; write level: N (gated − ungated at level N) or levels_from: K (pooled over levels >= K)' });
    } else if (c.level !== undefined && c.levels_from !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['levels_from'], message: 'names two comparisons (level and levels_from); keep one, and list the other under secondary' });
    }
  })
  .describe('One comparison of gated − ungated survival: `level: N` at achieved level N, or `levels_from: K` pooled over levels >= K. Exactly one of the two.')
  .meta({ examples: [{ level: 2 }] });
export type Comparison = z.infer<typeof Comparison>;

/** A comparison as text: "level 2" or "levels >= 1". */
export function comparisonName(c: Comparison): string {
  return c.level !== undefined ? `level ${c.level}` : `levels >= ${c.levels_from}`;
}

/** The deepest level a comparison needs a cap to reach. */
export const comparisonDepth = (c: Comparison): number => (c.level ?? c.levels_from)!;

/** The Lan–DeMets spending functions a sequential design may name (harness/stats/group-sequential.ts computes them). */
export const SPENDING_FUNCTIONS = ['obrien_fleming', 'pocock'] as const;

/**
 * `sequential:`: the hypothesis is ruled on at up to `looks` interim looks (`harness report
 * --look`), each at the efficacy boundary the spending function allows by its information
 * fraction (pairs measured over pairs planned for the primary comparison), so staging a sweep
 * and looking between stages keeps the false-positive rate at alpha.
 */
export const Sequential = z
  .object({
    looks: z
      .int()
      .min(1, 'must be at least 1 (1 is the fixed design: one look, at the end)')
      .max(20, 'must be at most 20; a look is a stage of the sweep, and more than a handful buys almost nothing')
      .describe('K: the most looks the ruling may take, the last spending what alpha is left. At least 1 (1 = the fixed design). No default.')
      .meta({ examples: [2] }),
    spending: z
      .enum(SPENDING_FUNCTIONS, { error: (issue) => `must be one of ${SPENDING_FUNCTIONS.join(', ')} (Lan–DeMets spending functions), got ${JSON.stringify(issue.input)}` })
      .describe('How alpha is spent over the looks: obrien_fleming (almost nothing early; the last boundary stays near the fixed design\'s) or pocock (evenly; early stops come easier, the last boundary is paid for). No default.')
      .meta({ examples: ['obrien_fleming'] }),
    futility: z
      .literal(true, { error: 'may only be true (declare a non-binding futility boundary) or left out' })
      .optional()
      .describe('true: each interim look also checks a non-binding futility boundary (beta spent by the same function); crossing it rules STOP: NOT SUPPORTED. Non-binding: the efficacy boundaries ignore it, so continuing past it keeps alpha. Default: no futility boundary.')
      .meta({ examples: [true] }),
  })
  .strict()
  .describe('A group-sequential design: up to `looks` rulings, each taken explicitly (`harness report --look`) and journalled, with Lan–DeMets alpha spending on the information fraction. Default: none (one fixed ruling; repeated looks get the caveat REPEATED LOOKS, NOT ADJUSTED).')
  .meta({ examples: [{ looks: 2, spending: 'obrien_fleming' }] });
export type Sequential = z.infer<typeof Sequential>;

export const Hypothesis = z
  .object({
    primary: Comparison.describe('The one comparison the sweep is run to decide, ruled on at alpha. No default.'),
    secondary: z
      .array(Comparison)
      .default([])
      .describe('Further comparisons, each ruled on at its Holm-adjusted alpha (step-down over the secondaries, so together they are wrong at most alpha of the time). Default none.')
      .meta({ examples: [[{ level: 1 }, { levels_from: 1 }]] }),
    smallest_difference: z
      .number()
      .gt(0)
      .max(1)
      .describe('δ: the smallest gated − ungated survival difference (0–1 scale) that matters. SUPPORTED needs the interval above 0 and reaching δ; an interval wholly below δ is NOT SUPPORTED. No default.')
      .meta({ examples: [0.1] }),
    alpha: z
      .number()
      .gt(0)
      .max(0.5)
      .describe('Significance level: each ruling reads the (1 − alpha) interval (secondaries: the Holm-adjusted alpha). No default.')
      .meta({ examples: [0.05] }),
    power: z
      .number()
      .gt(0)
      .lt(1)
      .describe('The power wanted to detect smallest_difference at alpha; `harness plan` says whether the design has it. It never enters a ruling. No default.')
      .meta({ examples: [0.8] }),
    sequential: Sequential.optional(),
  })
  .strict()
  .superRefine((h, ctx) => {
    if (h.power <= h.alpha) ctx.addIssue({ code: 'custom', path: ['power'], message: `${h.power} is not above alpha (${h.alpha}); a test has power alpha at no difference at all, so ask for more, e.g. power: 0.8` });
    const primary = comparisonName(h.primary);
    h.secondary.forEach((c, i) => {
      const name = comparisonName(c);
      if (name === primary) ctx.addIssue({ code: 'custom', path: ['secondary', i], message: `${name} is already the primary comparison; remove it from secondary` });
      else if (h.secondary.findIndex((o) => comparisonName(o) === name) !== i) ctx.addIssue({ code: 'custom', path: ['secondary', i], message: `${name} appears twice; list each comparison once` });
    });
  })
  .describe(
    'A pre-registered ruling: one primary comparison of gated − ungated survival, optional Holm-adjusted secondaries, the smallest difference that matters, alpha and the power wanted. Pinned in the journal with the manifest; `harness report` rules SUPPORTED, NOT SUPPORTED or INCONCLUSIVE on each comparison from its (1 − alpha) interval, and says NOT PRE-REGISTERED when the journal does not pin it. Default: none (no ruling).',
  )
  .meta({ examples: [{ primary: { level: 2 }, secondary: [{ levels_from: 1 }], smallest_difference: 0.1, alpha: 0.05, power: 0.8 }] });
export type Hypothesis = z.infer<typeof Hypothesis>;

/** The block as the journal's header pins it: plain JSON of the parsed block (defaults applied), so a later reader compares values, not spellings. */
export function hypothesisPin(hypothesis: Hypothesis): Hypothesis {
  return JSON.parse(JSON.stringify(hypothesis)) as Hypothesis;
}

/** Checks of the block against the rest of the manifest: a comparison no cap reaches, or one arm only. */
export function hypothesisProblems(h: Hypothesis, design: { depth_caps: readonly number[]; arms: readonly string[] }): Array<{ path: PropertyKey[]; message: string }> {
  const problems: Array<{ path: PropertyKey[]; message: string }> = [];
  if (design.arms.length < 2) problems.push({ path: ['hypothesis'], message: `compares gated with ungated, but arms records only ${design.arms.join('')}; record both arms or remove the hypothesis` });
  const deepest = Math.max(...design.depth_caps);
  const check = (c: Comparison, path: PropertyKey[]) => {
    const depth = comparisonDepth(c);
    const key = c.level !== undefined ? 'level' : 'levels_from';
    if (Number.isInteger(deepest) && depth > deepest) problems.push({ path: [...path, key], message: `${depth} is deeper than the deepest cap (${deepest}), so no leaf can sit there; compare a level up to ${deepest}, or add a deeper cap to depth_caps` });
  };
  check(h.primary, ['hypothesis', 'primary']);
  h.secondary.forEach((c, i) => check(c, ['hypothesis', 'secondary', i]));
  return problems;
}
