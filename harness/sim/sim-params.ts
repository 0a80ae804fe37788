import { z } from 'zod';
import { plain } from '../internal/figures.js';

/**
 * The planted parameters of the SIMULATED agent population: the manifest's `simulated:` block.
 * Every rate below is a probability of one named, identity-keyed draw (see draw.ts); each
 * field's description says exactly when that draw is made, so the closed-form truth
 * (truth.ts), the pure sampler (sampler.ts) and the sim ModelClient make the same decisions.
 * Keys are snake_case because the block is YAML written by people.
 */

const Rate = (fallback: number, why: string) =>
  z.number().min(0).max(1).default(fallback).describe(`${why} A rate in [0, 1]. Default ${fallback}.`).meta({ examples: [fallback] });

/** Default `bound_replan_rate`: half the planners asked again within the bound comply, so both the replan and the cut are exercised. */
export const DEFAULT_BOUND_REPLAN_RATE = 0.5;

/** Default branching: half the splits make two children and half make three, so trees are not all full. */
export const DEFAULT_BRANCHING: Readonly<Record<string, number>> = Object.freeze({ '2': 0.5, '3': 0.5 });

const Branching = z
  .record(z.string(), z.number().min(0).max(1))
  .superRefine((table, ctx) => {
    for (const key of Object.keys(table)) {
      if (!/^([2-9]|[1-9][0-9]+)$/.test(key)) ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" is not a child count; use whole numbers of at least 2 as keys, e.g. {2: 0.5, 3: 0.5}` });
    }
    const total = Object.values(table).reduce((a, b) => a + b, 0);
    if (Object.keys(table).length === 0) ctx.addIssue({ code: 'custom', message: 'is empty; give at least one child count, e.g. {2: 0.5, 3: 0.5}' });
    else if (Math.abs(total - 1) > 1e-9) ctx.addIssue({ code: 'custom', message: `probabilities sum to ${total}, not 1; scale them so they sum to 1` });
  })
  .default({ ...DEFAULT_BRANCHING })
  .describe(
    'Distribution of the number of children k of a node that splits, as {k: probability} (k >= 2, probabilities summing to 1). Drawn once per splitting node, by the planner at that node (draw `branching`), and clamped to the number of requirements the node owns; the node\'s requirements are then cut into k contiguous chunks as equal as possible, the first chunks taking the extra one. Default {2: 0.5, 3: 0.5}.',
  )
  .meta({ examples: [{ 2: 0.5, 3: 0.5 }] });

/**
 * The collapse mode: an optional block, off when absent, so a manifest without it keeps its
 * digest and every existing draw (no collapse draw is made while it is off).
 */
const Collapse = z
  .object({
    rate: z.number().min(0).max(1).describe('Chance that a whole cell (one arm of one (cap, repetition)) collapses. Drawn once per cell at the root merge (draw `collapse`, keyed by arm). A rate in [0, 1]. No default.'),
    severity: z
      .number()
      .min(0)
      .max(1)
      .describe(
        "Chance, in a collapsed cell, that each requirement of the spec not already defective gets a planted defect at the root's first assembly (draw `collapse-defect` per requirement, then `collapse-variant` for its patch). The arm's reviews may then find and repair them like any other defect. A rate in [0, 1]. No default.",
      ),
  })
  .strict()
  .optional()
  .describe(
    "SIMULATED collapse mode: with probability `rate` a whole cell's survival falls to a low mode, as an earlier real system's cells did (39, 40 and 19 of 42 requirements in three cap-1 cells), so outcomes are bimodal rather than binomial. Drawn once per cell at the root's merge (draw `collapse`, keyed by arm), so it acts there only (a root that executes whole never collapses). Default absent, which is off (no collapse draw is made).",
  )
  .meta({ examples: [{ rate: 0.1, severity: 0.5 }] });

export const SimParams = z
  .object({
    seed: z
      .int()
      .nonnegative()
      .default(1)
      .describe(
        'Seed of the simulated population. Every draw is a pure function of (seed, cap, repetition, [arm], node path, role, attempt, decision, [item]), never of call order, so a resumed or concurrent sweep makes the same draws as an uninterrupted one. Default 1.',
      )
      .meta({ examples: [1] }),
    leaf_defect_rate: Rate(
      0.2,
      'Chance that a simulated leaf plants a defect in a requirement it claims. Drawn once per leaf and claimed requirement (draw `defect`, shared by both arms under shared pairing); the planted patch is then chosen uniformly among that requirement\'s defects in the corpus table (draw `variant`).',
    ),
    seam_defect_rate: Rate(
      0.15,
      'Chance that a simulated merge breaks a seam with one child. Drawn once per merge and child, at the first merge attempt only (never per attempt), and separately per arm (draw `seam`). The broken requirement is chosen uniformly among the requirements the child\'s subtree owns (draw `seam-target`) and gets one of its planted patches (draw `seam-variant`); if that requirement is already defective, nothing changes (its defect stays as it was).',
    ),
    judge_recall: Rate(
      0.8,
      'Chance that the independent judge (gated arm) finds a planted defect. Drawn per review attempt and per defect present anywhere in the merge node\'s subtree (draw `find`). A review that finds nothing is an approval and ends the merge loop.',
    ),
    self_review_recall: Rate(
      0.3,
      'Chance that a self-review (ungated arm) finds a planted defect. Drawn per review attempt and per defect present in the subtree (draw `find`). Its verdict is not used: the ungated loop always spends every attempt, and findings only shape the repair.',
    ),
    repair_rate: Rate(
      0.6,
      'Chance that a merge attempt removes a defect the previous attempt\'s review found. Drawn per attempt 2..merge_attempts and per finding (draw `repair`); the last review\'s findings are repaired by nobody, and a repair never creates a defect.',
    ),
    branching: Branching,
    early_leaf_rate: Rate(
      0.1,
      'Chance that a node which could split (it has room under the cap and owns at least 2 requirements) executes as a leaf instead. Drawn once per such node by its planner (draw `early-leaf`); it makes achieved depth differ from the cap.',
    ),
    unresolved_claim_rate: Rate(
      0.05,
      'Chance that a leaf\'s claim text names no requirement. Drawn once per leaf and requirement of its chunk (draw `unresolved`); the claim is dropped from the survival metric and counted, while the code (and any defect) is still written.',
    ),
    bound_replan_rate: z
      .number()
      .min(0)
      .max(1)
      .optional()
      .describe(
        `Chance that a simulated planner whose plan split wider than the manifest's max_children, asked again with the bound stated, replans within it (its requirements cut into max_children chunks as above); otherwise it repeats the wide plan and the engine's written rule cuts it (the trailing chunks merged into the last kept one). Drawn once per node whose drawn k, clamped, is above max_children, by its planner at attempt 2 (draw \`bound-replan\`); never drawn without max_children. A rate in [0, 1]. Default ${DEFAULT_BOUND_REPLAN_RATE}.`,
      )
      .meta({ examples: [DEFAULT_BOUND_REPLAN_RATE] }),
    non_delivery_rate: Rate(
      0.05,
      'Chance that a leaf does not deliver (its own tests fail). Drawn once per leaf (draw `deliver`); its claims leave the survival denominator, while its code and defects still go into the tree.',
    ),
    collapse: Collapse,
  })
  .strict()
  .prefault({})
  .describe(
    'Planted parameters of the SIMULATED provider `sim`. The harness is validated by recovering these: measured survival must match the closed-form expectation. Ignored by real providers. Defaults as listed per field.',
  )
  .meta({ examples: [{ seed: 1, leaf_defect_rate: 0.2, judge_recall: 0.8, self_review_recall: 0.3, branching: { 2: 0.5, 3: 0.5 } }] });
export type SimParams = z.infer<typeof SimParams>;

/**
 * The planted parameters as the sim's tree model reads them: with the manifest's `max_children`
 * beside them when it sets one (the bound is the engine's rule, not a planted behaviour, so it
 * lives in the manifest; the model needs it to plant the tree the engine will really build).
 */
export type SimModel = SimParams & { readonly max_children?: number | undefined };

/** The planted parameters with the manifest's bound beside them (see {@link SimModel}); unchanged without one. */
export function withBound(params: SimParams, maxChildren: number | undefined): SimModel {
  return maxChildren === undefined ? params : { ...params, max_children: maxChildren };
}

/** `bound_replan_rate` as planted, or its documented default (applied here, so a manifest that leaves it out keeps its digest). */
export function replanRateOf(params: Pick<SimParams, 'bound_replan_rate'>): number {
  return params.bound_replan_rate ?? DEFAULT_BOUND_REPLAN_RATE;
}

/** The branching distribution as sorted (k, probability) pairs, zero-probability entries dropped. */
export function branchingTable(params: Pick<SimParams, 'branching'>): { k: number; p: number }[] {
  return Object.entries(params.branching)
    .map(([k, p]) => ({ k: Number(k), p }))
    .filter((e) => e.p > 0)
    .sort((a, b) => a.k - b.k);
}

/** Every planted parameter in one line, as every artifact of a simulated run shows them (plan, solve, report). */
export function plantedText(p: SimParams): string {
  const branching = Object.entries(p.branching)
    .map(([k, v]) => `${k}: ${plain(v)}`)
    .join(', ');
  return [
    `seed ${p.seed}`,
    `leaf_defect_rate ${plain(p.leaf_defect_rate)}`,
    `seam_defect_rate ${plain(p.seam_defect_rate)}`,
    `judge_recall ${plain(p.judge_recall)}`,
    `self_review_recall ${plain(p.self_review_recall)}`,
    `repair_rate ${plain(p.repair_rate)}`,
    `branching {${branching}}`,
    `early_leaf_rate ${plain(p.early_leaf_rate)}`,
    `unresolved_claim_rate ${plain(p.unresolved_claim_rate)}`,
    `non_delivery_rate ${plain(p.non_delivery_rate)}`,
    // Only when planted: the line of every sweep without it stays as it was.
    ...(p.bound_replan_rate !== undefined ? [`bound_replan_rate ${plain(p.bound_replan_rate)}`] : []),
    ...(p.collapse ? [`collapse {rate ${plain(p.collapse.rate)}, severity ${plain(p.collapse.severity)}}`] : []),
  ].join(', ');
}

/** The collapse mode's rate and severity; both 0 when the block is absent (off). */
export function collapseOf(params: Pick<SimParams, 'collapse'>): { rate: number; severity: number } {
  return params.collapse ?? { rate: 0, severity: 0 };
}
