import { z } from 'zod';
import { Concurrency } from './concurrency.js';
import type { Arm as EngineArm } from '../../engine/index.js';
import { SimParams } from '../sim/sim-params.js';
import { looksLikeSecret } from '../internal/secret-shape.js';
import { TEXT_LIMITS, tooLong } from '../internal/text-limits.js';
import { Hypothesis, hypothesisProblems } from './hypothesis.js';

/**
 * The sweep manifest: what one sweep measures, on which models, and the ceilings it may not
 * pass. This file is the only definition of the format; the TypeScript types, the loader's
 * checks and the committed JSON Schema (harness/schema/manifest.schema.json) all derive
 * from it. Keys are snake_case because the format is YAML data written by people.
 */

/** The two arms: merges judged by an independent reviewer, or by the merging agent itself. */
/**
 * The engine's arms, restated so the manifest (which the report's data-only schemas reach) never
 * imports the engine at run time; the type check below keeps the two lists equal.
 */
export const ARMS = ['gated', 'ungated'] as const;
const sameArms: [EngineArm, (typeof ARMS)[number]] extends [(typeof ARMS)[number], EngineArm] ? true : never = true;
void sameArms;
export const Arm = z.enum(ARMS).describe('`gated`: an independent reviewer judges every merge and a rejection feeds a repair attempt. `ungated`: the merging agent reviews itself and its verdict is not used (the control).');
export type Arm = z.infer<typeof Arm>;

export const Independence = z
  .enum(['cross_family', 'same_family'])
  .describe(
    'What the two pairs claim about each other. `cross_family`: executor and reviewer come from different model families, so the gate is an independent judge (both pairs must declare a family, and they must differ). `same_family`: they share one; allowed, but every artifact then carries a caveat, because a judge prefers its own family and that biases the arms toward no difference. No default: the claim is checked, so it must be made.',
  )
  .meta({ examples: ['cross_family'] });
export type Independence = z.infer<typeof Independence>;

/**
 * The SD of pair differences `harness plan` assumes when the manifest names none (see
 * `analysis.pair_difference_sd`). Applied where it is read rather than as a parse default, so a
 * manifest that leaves it out keeps the digest it had before the field existed.
 */
export const DEFAULT_PAIR_DIFFERENCE_SD = 0.25;

/**
 * Deepest cap a manifest may declare. A cap d holds b^d leaves: at b = 4 a cap of 10 is already
 * a million leaf sessions per cell, past any budget, and far deeper caps make the plan's figures
 * themselves uncountable. The measured question lives at caps 1-4.
 */
export const MAX_DEPTH_CAP = 10;

/**
 * Widest `max_children` a manifest may declare: wider is a bound that bounds no bill (at 64
 * children a cap of 10 already passes any countable number of sessions).
 */
export const MAX_CHILDREN_LIMIT = 64;

/**
 * A family as a name, not a spelling: "OpenAI", " openai " and "ＯｐｅｎＡＩ" are one family,
 * so a cross_family claim cannot be passed by changing case, and same_family is not refused for it.
 */
export function familyName(text: string): string {
  return text.normalize('NFKC').trim().toLowerCase();
}

/** A declared family: compared (and digested) as its `familyName`. */
export const Family = (description: string, example: string) =>
  z
    .string()
    .max(TEXT_LIMITS.family, tooLong(TEXT_LIMITS.family))
    .regex(/\S/, 'is blank; write the family name, or leave the field out')
    // Checked as written: a key's shape can depend on its case (AKIA...), which the name drops.
    .refine((text) => !looksLikeSecret(text), 'looks like a literal API key (value not shown); a family is the name of the organisation that trained the model, and keys belong in environment variables')
    .describe(`${description} Compared as a name: case and surrounding space do not count. At most ${TEXT_LIMITS.family} characters.`)
    .meta({ examples: [example] })
    .transform(familyName);

/** Who answers a role. The simulated provider needs no configuration; anything else is named by the provider configuration. */
export const ModelPair = z
  .object({
    provider: z
      .enum(['sim', 'openai-compatible'])
      .describe(
        '`sim`: the built-in simulated agent population (deterministic, planted rates from `simulated`; needs no configuration). `openai-compatible`: any OpenAI-compatible endpoint; the provider configuration (--providers FILE or RDH_PROVIDERS) says which endpoint serves `model` and at what price. No default.',
      )
      .meta({ examples: ['openai-compatible'] }),
    model: z
      .string()
      .min(1)
      .max(TEXT_LIMITS.id, tooLong(TEXT_LIMITS.id))
      .describe(`Model id: a real id, or a placeholder the provider configuration maps to a real model. Placeholders keep the manifest vendor-agnostic, so one sweep can be recorded against different providers. At most ${TEXT_LIMITS.id} characters. No default.`)
      .meta({ examples: ['executor-model'] }),
    family: Family(
      "Declared model family: the organisation that trained the model (for `sim`, the simulated population's name, e.g. sim-alpha). Self-preference follows the trainer, not the endpoint, so independence is checked on this, never on the provider. Required under cross_family; no default.",
      'example-family-a',
    ).optional(),
    rung: z
      .int()
      .positive()
      .describe('Capability rung (1 = the smallest model that can do the work; higher is more capable). A placeholder id has no discoverable capability, and a reviewer weaker than the executor it judges is a different experiment, so it is declared and recorded beside every result. No default.')
      .meta({ examples: [3] }),
  })
  .strict();
export type ModelPair = z.infer<typeof ModelPair>;

/** How the two arms of one (cap, repetition) relate. */
export const Pairing = z
  .enum(['shared', 'independent'])
  .default('shared')
  .describe(
    '`shared`: both arms of a (cap, repetition) pair share one planned tree and its built leaves, and diverge at the first merge, so the difference between them comes from the merges alone, planning and leaves are paid once per pair, and both arms reach the same depth. `independent`: each arm plans and builds its own tree, as earlier harnesses did (planning and leaves paid once per arm). Default shared.',
  )
  .meta({ examples: ['shared'] });
export type Pairing = z.infer<typeof Pairing>;

const PositiveInt = () => z.int().positive();

/**
 * The token allocations a manifest that names none gets, sized from what real leaves spent: a
 * live leaf that delivered spent about 600k tokens (its planning, checks, work loop and
 * verification), and an assembling node's planning, merges and reviews are of the same order.
 * Applied where they are read (see {@link allocationOf}), so a manifest that leaves them out
 * keeps the digest it had before the field existed.
 */
export const DEFAULT_ALLOCATION = { leaf_tokens: 800_000, assembly_tokens: 800_000 } as const;

function uniqueItems<T>(what: string) {
  return (items: T[], ctx: z.core.$RefinementCtx<T[]>) => {
    items.forEach((item, i) => {
      if (items.indexOf(item) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `${JSON.stringify(item)} appears twice; list each ${what} once` });
    });
  };
}

/**
 * A sweep manifest as written (after validation, with every default applied). Paths stay as
 * written so that the digest does not depend on where the checkout lives.
 */
export const Manifest = z
  .object({
    version: z.literal(1).describe('Format version. Always 1; a later format takes a new number so an older harness refuses it rather than misreading it. No default.').meta({ examples: [1] }),
    name: z
      .string()
      .max(TEXT_LIMITS.name, tooLong(TEXT_LIMITS.name))
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'uses characters other than letters, digits, ".", "_" and "-" (or does not start with a letter or digit)')
      .describe(`Short name of the sweep, used in headings and run folder names, so letters, digits, ".", "_" and "-" only, at most ${TEXT_LIMITS.name} characters. No default.`)
      .meta({ examples: ['recursion-depth'] }),
    spec: z
      .string()
      .min(1)
      .max(TEXT_LIMITS.path, tooLong(TEXT_LIMITS.path))
      // Refused before it is resolved: a message about a missing folder would print the path.
      .refine((text) => !looksLikeSecret(text), 'looks like a literal API key (value not shown); spec is the folder of SPEC.md and requirements.yaml, relative to this file')
      .describe(
        `Folder holding the specification handed to agents (SPEC.md and requirements.yaml), relative to this manifest file's own folder, so the manifest means the same from any working directory. Must exist, and must not be, lie inside or hold a folder of held-out material (an oracle folder, marked by a .held-out file), even through a symbolic link. At most ${TEXT_LIMITS.path} characters. No default.`,
      )
      .meta({ examples: ['../spec/my-task'] }),
    // Metadata sits inside the transform so the JSON Schema (input side) keeps it.
    depth_caps: z
      .array(PositiveInt().max(MAX_DEPTH_CAP, `must be at most ${MAX_DEPTH_CAP}: a cap d holds b^d leaves, so a deeper cap is a bill nobody can pay`))
      .min(1)
      .superRefine(uniqueItems('cap'))
      .describe(
        `Depth caps to sweep: the deepest planning level a tree may use (a cap of N fully used reports N). Whole numbers from 1 to ${MAX_DEPTH_CAP}, each once; order does not matter. At most ${MAX_DEPTH_CAP} because a cap d holds b^d leaves: at b = 4 a cap of ${MAX_DEPTH_CAP} is a million leaf sessions per cell. \`--depths\` records a subset. No default.`,
      )
      .meta({ examples: [[1, 2, 3, 4]], uniqueItems: true })
      .transform((caps) => [...caps].sort((a, b) => a - b)),
    repetitions: z
      .object({
        default: PositiveInt().default(1).describe('Cells per cap and arm for every cap without an override. Default 1.').meta({ examples: [2] }),
        by_cap: z
          .record(z.string().max(TEXT_LIMITS.numberKey, tooLong(TEXT_LIMITS.numberKey)).regex(/^[1-9][0-9]*$/, 'is not a depth cap (a positive whole number)'), PositiveInt())
          .default({})
          .describe('Overrides by cap, e.g. {3: 4, 4: 4}: spend samples where the curve bends (caps 3-4) rather than where it is flat and cheap. Keys must be caps in depth_caps. Default none.')
          .meta({ examples: [{ 3: 4, 4: 4 }] }),
      })
      .strict()
      .prefault({})
      .describe('Repetitions per cap and arm: a default plus per-cap overrides. Results are bimodal, so a cap needs several cells before its spread means anything. Default 1 for every cap.')
      .meta({ examples: [{ default: 2, by_cap: { 3: 4, 4: 4 } }] }),
    arms: z
      .array(Arm)
      .min(1)
      .superRefine(uniqueItems('arm'))
      .default([...ARMS])
      .describe('Which arms to record. Both, unless staging one: the comparison between them is the measurement. Order does not matter. Default [gated, ungated].')
      .meta({ examples: [['gated', 'ungated']], uniqueItems: true })
      .transform((arms) => ARMS.filter((arm) => arms.includes(arm))),
    executor: ModelPair.describe('The pair that plans, builds leaves and merges. No default.').meta({
      examples: [{ provider: 'openai-compatible', model: 'executor-model', family: 'example-family-a', rung: 3 }],
    }),
    reviewer: ModelPair.describe('The pair that judges merges in the gated arm. Must differ from the executor; its family is checked against `independence`. No default.').meta({
      examples: [{ provider: 'openai-compatible', model: 'reviewer-model', family: 'example-family-b', rung: 3 }],
    }),
    independence: Independence,
    merge_attempts: PositiveInt()
      .default(2)
      .describe(
        'Merge attempts per assembling node, one number for both arms: the gated arm may repair after a rejection, and the ungated arm spends the same attempts on a self-review, so the arms differ in independence rather than effort (repair rounds otherwise float with reviewer behaviour). Each attempt is a merge session and a review session. Default 2.',
      )
      .meta({ examples: [2] }),
    unit: z
      .object({
        max_turns: PositiveInt().default(60).describe('Tool-loop turns one session may take before it is stopped. Default 60.').meta({ examples: [60] }),
        token_ceiling: PositiveInt()
          .default(1_000_000)
          .describe('Tokens one session may spend (input + output). Counted on every provider, so it holds where the cost ceiling cannot. Default 1000000 (a live leaf that delivered spent about 600k).')
          .meta({ examples: [1_000_000] }),
        cost_ceiling_usd: z
          .number()
          .positive()
          .default(5)
          .describe('US dollars one session may spend. A flat-rate provider reports $0 per call, so this can never fire there; the token ceiling is the bound that always holds. Default 5.')
          .meta({ examples: [5] }),
      })
      .strict()
      .prefault({})
      .describe('Ceilings on one session (a unit of agent work). Default: 60 turns, 1000000 tokens, $5.')
      .meta({ examples: [{ max_turns: 60, token_ceiling: 1_000_000, cost_ceiling_usd: 5 }] }),
    budget: z
      .object({
        leaf_tokens: PositiveInt()
          .describe(`Tokens (input + output) each leaf may spend in all: its planning, checks, work loop (at most 60% of this) and verification. Every leaf of a tree receives it, however wide the plan its parent made. Default ${DEFAULT_ALLOCATION.leaf_tokens} (a real leaf that delivered spent about 600k).`)
          .meta({ examples: [DEFAULT_ALLOCATION.leaf_tokens] }),
        assembly_tokens: PositiveInt()
          .describe(`Tokens each assembling node may spend on its own planning, merge attempts and reviews, beside its children's allocations (each arm's merges draw on their own copy). Default ${DEFAULT_ALLOCATION.assembly_tokens}.`)
          .meta({ examples: [DEFAULT_ALLOCATION.assembly_tokens] }),
      })
      .strict()
      .partial()
      .optional()
      .describe(
        `Token allocations, declared per node rather than per tree: every leaf receives leaf_tokens and every node that splits receives assembly_tokens plus its children's, computed from the plan actually made, so a tree wider than projected_branching starves no leaf. A leaf or merge cut short by its allocation, or by the length limit, is counted per cell, and such a cell carries a caveat. Default leaf_tokens ${DEFAULT_ALLOCATION.leaf_tokens}, assembly_tokens ${DEFAULT_ALLOCATION.assembly_tokens}.`,
      )
      .meta({ examples: [{ leaf_tokens: DEFAULT_ALLOCATION.leaf_tokens, assembly_tokens: DEFAULT_ALLOCATION.assembly_tokens }] }),
    grade_merges: z
      .boolean()
      .optional()
      .describe(
        'Grade every assembled node\'s tree with the oracle, not only the root\'s, so survival is measured merge by merge: for each node only the requirements claimed under it count, and each claim records the node where it last passed. A subtree is graded only when its tree holds the deliverable\'s entry point; the others are counted as not gradable there, never as deaths. The root grade stays the primary endpoint. Costs one grading per assembling node and arm (at cap 4 and 4 children, about 170 per pair); no model calls. Default: true for a SIMULATED sweep, false otherwise.',
      )
      .meta({ examples: [true] }),
    grade_leaves: z
      .boolean()
      .optional()
      .describe(
        "Grade every leaf's own tree with the oracle too, to count what a leaf built beyond what it claimed: a model that writes the whole deliverable at every leaf flattens depth, and shows here. A leaf's tree is graded only when it holds the deliverable's entry point; the others are counted as not gradable. Requirements a prerequisite handed to the leaf (its claims, or what its own tree passes) are not counted against it. Costs one grading per leaf and pair (shared pairing) or per leaf and arm (independent); no model calls. Default: true for a SIMULATED sweep, false otherwise.",
      )
      .meta({ examples: [true] }),
    max_sessions: PositiveInt()
      .describe('Hard ceiling on model sessions for the whole sweep; reaching it stops the sweep and reports what was measured, with a caveat. Sessions scale with branching^depth, which nobody can predict, so this is what makes a wrong guess survivable. `--max-sessions` may lower it, never raise it. No default: a ceiling nobody chose is not a ceiling.')
      .meta({ examples: [8000] }),
    max_cost_usd: z
      .number()
      .positive()
      .optional()
      .describe(
        'Hard ceiling on the whole sweep\'s spend in US dollars, across every invocation of one journal: checked before every model call against the metered spend so far plus the most each call in flight could cost (its prompt and its max_tokens at the model\'s prices), so the bill can never pass it. Needs a price for every model the sweep calls. Default: none (max_sessions and the unit ceilings still bound the bill).',
      )
      .meta({ examples: [50] }),
    projected_branching: z
      .number()
      .gt(1)
      .describe('Children per planning node assumed by `harness plan` to project the bill (b^d leaves at cap d). A scenario, not a bound: the planner decides the real shape. Round down from a recorded tree. Above 1 (at 1 a tree never grows); no default, because a hidden input reads as a measurement.')
      .meta({ examples: [4] }),
    max_children: z
      .int('must be a whole number')
      .min(2, 'must be at least 2 (a split into fewer pieces is no split); leave the field out for no bound')
      .max(MAX_CHILDREN_LIMIT, `must be at most ${MAX_CHILDREN_LIMIT} (a bound that wide bounds no bill); leave the field out for no bound`)
      .optional()
      .describe(
        `Most children one planning node may have, in both arms and at every cap. A plan that splits wider is refused and the planner is asked once more with the bound stated; a plan still too wide is cut to the bound by a written rule (the trailing pieces are merged into the last kept piece, their goals and claims concatenated), and every cut is journalled. When set, \`harness plan\` uses it in place of projected_branching and prints sessions and tokens as bounds (at most max_children^d leaves at cap d). Whole number from 2 to ${MAX_CHILDREN_LIMIT}; enters the digest, so a journal recorded under one bound cannot be resumed under another. Default: no bound (the planner decides the width).`,
      )
      .meta({ examples: [2] }),
    concurrency: Concurrency.default(4),
    pairing: Pairing,
    simulated: SimParams,
    analysis: z
      .object({
        pair_difference_sd: z
          .number()
          .gt(0)
          .max(1)
          .optional()
          .describe(
            `Standard deviation of the pair differences (gated − ungated survival of one (cap, repetition), on the 0–1 scale) that \`harness plan\` sizes its power figures with: the minimum detectable difference per cap at 80% power, alpha 0.05. Default ${DEFAULT_PAIR_DIFFERENCE_SD}, from the spread of an earlier system's recorded cells (39, 40 and 19 of 42 requirements: SD 0.28 within one arm), rounded down because pairing shares the leaves; the simulated population at its default rates spreads far less (about 0.06 at caps 2-4). Once cells are recorded, \`plan --from runs/NAME\` uses their measured spread instead.`,
          )
          .meta({ examples: [DEFAULT_PAIR_DIFFERENCE_SD] }),
      })
      .strict()
      .optional()
      .describe(`How the plan judges what the sweep can detect. Changes no measurement. Default: pair_difference_sd ${DEFAULT_PAIR_DIFFERENCE_SD}.`)
      .meta({ examples: [{ pair_difference_sd: DEFAULT_PAIR_DIFFERENCE_SD }] }),
    hypothesis: Hypothesis.optional(),
  })
  .strict()
  .superRefine((m, ctx) => {
    const { executor: ex, reviewer: rv } = m;
    if (ex.provider === rv.provider && ex.model === rv.model) {
      ctx.addIssue({ code: 'custom', path: ['reviewer'], message: `same provider and model as executor (${ex.provider} ${ex.model}); a pair cannot judge its own work, so name a different reviewer model` });
    }
    if (m.independence === 'cross_family') {
      for (const role of ['executor', 'reviewer'] as const) {
        if (m[role].family === undefined) {
          ctx.addIssue({ code: 'custom', path: [role, 'family'], message: `missing, but independence: cross_family needs both pairs to declare a family; add ${role}.family, or claim independence: same_family` });
        }
      }
      if (ex.family !== undefined && ex.family === rv.family) {
        ctx.addIssue({ code: 'custom', path: ['reviewer', 'family'], message: `"${rv.family}" is also executor.family, which contradicts independence: cross_family; use a reviewer from another family, or claim independence: same_family` });
      }
    } else if (ex.family !== undefined && rv.family !== undefined && ex.family !== rv.family) {
      ctx.addIssue({ code: 'custom', path: ['independence'], message: `same_family, but executor.family "${ex.family}" differs from reviewer.family "${rv.family}"; claim independence: cross_family, or correct the families` });
    }
    if (m.hypothesis) for (const p of hypothesisProblems(m.hypothesis, m)) ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
    // Against invalid caps the override check would only echo the caps' own problem.
    const capsValid = m.depth_caps.length > 0 && m.depth_caps.every((cap) => Number.isInteger(cap) && cap > 0);
    for (const key of capsValid ? Object.keys(m.repetitions.by_cap) : []) {
      if (!m.depth_caps.includes(Number(key))) {
        ctx.addIssue({ code: 'custom', path: ['repetitions', 'by_cap', key], message: `cap ${key} is not in depth_caps [${m.depth_caps.join(', ')}]; add it to depth_caps or remove this override` });
      }
    }
  })
  .meta({ title: 'recursion-depth harness sweep manifest', description: 'One sweep: depth caps x arms x repetitions, the model pairs, and the ceilings it may not pass. Validated by `harness plan`.' });
export type Manifest = z.infer<typeof Manifest>;

/** Repetitions the manifest asks for at `cap` (the per-cap override, else the default). */
export function repetitionsAt(manifest: Manifest, cap: number): number {
  return manifest.repetitions.by_cap[String(cap)] ?? manifest.repetitions.default;
}

/** The declared allocations of a manifest, its own figures or the documented defaults, as the engine takes them. */
export function allocationOf(manifest: Pick<Manifest, 'budget'>): { leafTokens: number; assemblyTokens: number } {
  return {
    leafTokens: manifest.budget?.leaf_tokens ?? DEFAULT_ALLOCATION.leaf_tokens,
    assemblyTokens: manifest.budget?.assembly_tokens ?? DEFAULT_ALLOCATION.assembly_tokens,
  };
}

/** Whether the sweep grades every assembled node (see `grade_merges`): the manifest's choice, else on exactly when the sweep is SIMULATED. */
/** Whether the sweep grades every leaf's own tree (see `grade_leaves`): the manifest's choice, else on exactly when the sweep is SIMULATED. */
export function gradeLeavesOf(manifest: Pick<Manifest, 'grade_leaves'>, simulated: boolean): boolean {
  return manifest.grade_leaves ?? simulated;
}

export function gradeMergesOf(manifest: Pick<Manifest, 'grade_merges'>, simulated: boolean): boolean {
  return manifest.grade_merges ?? simulated;
}

/** The SD of pair differences the plan's power figures use, and whether the manifest named it. */
export function pairDifferenceSdOf(manifest: Manifest): { sd: number; named: boolean } {
  const named = manifest.analysis?.pair_difference_sd;
  return named === undefined ? { sd: DEFAULT_PAIR_DIFFERENCE_SD, named: false } : { sd: named, named: true };
}
