import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from '../manifest/manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

/** Runs the CLI in memory; scratch paths read as <tmp> so snapshots hold on any machine. */
async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  // Reports name paths relative to the current folder; either way a scratch path reads <tmp>.
  const clean = (text: string) => text.replaceAll(path.relative(process.cwd(), tmp.dir), '<tmp>').replaceAll(tmp.dir, '<tmp>').replaceAll(process.cwd(), '<repo>');
  return { code, stdout: clean(io.stdout()), stderr: clean(io.stderr()) };
}

describe('harness plan: the shipped manifests', () => {
  it('prints the smoke sweep, SIMULATED on its face', async () => {
    const { code, stdout, stderr } = await run('plan', 'manifests/smoke.yaml');
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatchInlineSnapshot(`
      "harness plan: smoke (nothing is spent)
      SIMULATED: both pairs use the built-in sim provider, a synthetic agent population planted with
        seed 11, leaf_defect_rate 0.05, seam_defect_rate 0.8, judge_recall 0.9, self_review_recall
        0.1, repair_rate 0.9, branching {2: 0.5, 3: 0.5}, early_leaf_rate 0.1, unresolved_claim_rate
        0.05, non_delivery_rate 0.05

        manifest      manifests/smoke.yaml (digest 355342fd2d19)
        spec          ../spec/sqlcsv
        executor      sim sim-executor, family sim-alpha, rung 1
        reviewer      sim sim-reviewer, family sim-beta, rung 1
        independence  cross_family
        depth caps    1, 2
        matrix        2 caps x 2 arms (gated, ungated) x repetitions 1, 1 = 4 cells
        merges        2 attempts per assembling node, equal in every arm; each a merge and a review session
        budget        each leaf 800k tokens, each assembling node 800k beside its children's (the defaults; set budget: in the manifest); a tree's total follows the plan it makes
        max cost      none (max_cost_usd; max_sessions and the unit ceilings bound the bill)
        pairing       shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge

      Sessions if every tree uses its whole cap at projected_branching b = 2:

        cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound
        1         2         1             45     1      2        45        9.00M      $45.00
        2         4         3            119     1      2       119        23.8M        $119
        all                                             4       164        32.8M        $164

        Every figure comes from b = 2: a scenario, not a bound. A tree that stops shallow costs
        less; one that branches wider costs more.
        sessions/pair = leaves x [checker + worker + meta-verifier + verifier + 4 drift] + planning nodes x [planner],
                        once per pair (pairing: shared), + for each of the 2 arms: planning nodes x [checker + meta-verifier + 2 x (merger + review + 4 drift)].
        allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.
        pairing       = independent would be 216 sessions (+52 against shared).
        token bound   = sessions x unit.token_ceiling (200,000); it holds on every provider.
        cost bound    = sessions x unit.cost_ceiling_usd ($1.00); a flat-rate provider reports $0,
                        so only the token bound always holds.
        priced        = $0: the simulated provider charges nothing.

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (plan --from a recorded run)).

      Merge gradings (grade_merges on, the default for a SIMULATED sweep): every assembled node's tree
        is graded by the oracle as the root's is, in each arm; no model calls, so no sessions, tokens
        or dollars.

        cap  assembling  gradings/pair  extra/pair  reps  extra  grading time
        1             1              2           0     1      0            0s
        2             3              6           4     1      4        1m 08s
        all                                                   4        1m 08s

        gradings/pair = assembling nodes x 2 arms; extra leaves out the root grade every cell makes anyway.
        grading time  = extra x 17 s, the mean of runs/example-sim's four root gradings; serial, so
                        concurrency divides it.

      Leaf gradings (grade_leaves on, the default for a SIMULATED sweep): every leaf's own tree is
        graded by the oracle, to count what it built beyond its claims; no model calls, so no
        sessions, tokens or dollars.

        cap  leaves  trees/pair  reps  gradings  grading time
        1         2           1     1         2           34s
        2         4           1     1         4        1m 08s
        all                                   6        1m 42s

        trees/pair   = 1 under shared pairing (both arms hold the same leaves), else the arms.
        grading time = gradings x 17 s, as for merges; serial, so concurrency divides it.

      Ceiling: max_sessions 241 (from the manifest), the number the run enforces.
        The projection of 164 sessions fits.

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 1  1 pair  no test (one pair: a paired t test needs at least 2)
        cap 2  1 pair  no test (one pair: a paired t test needs at least 2)
      "
    `);
  });

  it('prints the smoke sweep for one cap', async () => {
    const { code, stdout } = await run('plan', 'manifests/smoke.yaml', '--depths', '1');
    expect(code).toBe(0);
    expect(stdout).toMatchInlineSnapshot(`
      "harness plan: smoke (nothing is spent)
      SIMULATED: both pairs use the built-in sim provider, a synthetic agent population planted with
        seed 11, leaf_defect_rate 0.05, seam_defect_rate 0.8, judge_recall 0.9, self_review_recall
        0.1, repair_rate 0.9, branching {2: 0.5, 3: 0.5}, early_leaf_rate 0.1, unresolved_claim_rate
        0.05, non_delivery_rate 0.05

        manifest      manifests/smoke.yaml (digest 355342fd2d19)
        spec          ../spec/sqlcsv
        executor      sim sim-executor, family sim-alpha, rung 1
        reviewer      sim sim-reviewer, family sim-beta, rung 1
        independence  cross_family
        depth caps    1 (--depths; the manifest declares 1, 2)
        matrix        1 cap x 2 arms (gated, ungated) x repetitions 1 = 2 cells
        merges        2 attempts per assembling node, equal in every arm; each a merge and a review session
        budget        each leaf 800k tokens, each assembling node 800k beside its children's (the defaults; set budget: in the manifest); a tree's total follows the plan it makes
        max cost      none (max_cost_usd; max_sessions and the unit ceilings bound the bill)
        pairing       shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge

      Sessions if every tree uses its whole cap at projected_branching b = 2:

        cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound
        1         2         1             45     1      2        45        9.00M      $45.00
        all                                             2        45        9.00M      $45.00

        Every figure comes from b = 2: a scenario, not a bound. A tree that stops shallow costs
        less; one that branches wider costs more.
        sessions/pair = leaves x [checker + worker + meta-verifier + verifier + 4 drift] + planning nodes x [planner],
                        once per pair (pairing: shared), + for each of the 2 arms: planning nodes x [checker + meta-verifier + 2 x (merger + review + 4 drift)].
        allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.
        pairing       = independent would be 62 sessions (+17 against shared).
        token bound   = sessions x unit.token_ceiling (200,000); it holds on every provider.
        cost bound    = sessions x unit.cost_ceiling_usd ($1.00); a flat-rate provider reports $0,
                        so only the token bound always holds.
        priced        = $0: the simulated provider charges nothing.

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (plan --from a recorded run)).

      Merge gradings (grade_merges on, the default for a SIMULATED sweep): every assembled node's tree
        is graded by the oracle as the root's is, in each arm; no model calls, so no sessions, tokens
        or dollars.

        cap  assembling  gradings/pair  extra/pair  reps  extra  grading time
        1             1              2           0     1      0            0s
        all                                                   0            0s

        gradings/pair = assembling nodes x 2 arms; extra leaves out the root grade every cell makes anyway.
        grading time  = extra x 17 s, the mean of runs/example-sim's four root gradings; serial, so
                        concurrency divides it.

      Leaf gradings (grade_leaves on, the default for a SIMULATED sweep): every leaf's own tree is
        graded by the oracle, to count what it built beyond its claims; no model calls, so no
        sessions, tokens or dollars.

        cap  leaves  trees/pair  reps  gradings  grading time
        1         2           1     1         2           34s
        all                                   2           34s

        trees/pair   = 1 under shared pairing (both arms hold the same leaves), else the arms.
        grading time = gradings x 17 s, as for merges; serial, so concurrency divides it.

      Ceiling: max_sessions 241 (from the manifest), the number the run enforces.
        The projection of 45 sessions fits.

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 1  1 pair  no test (one pair: a paired t test needs at least 2)
      "
    `);
  });

  it('prints the recursion-depth sweep', async () => {
    const { code, stdout } = await run('plan', 'manifests/recursion-depth.yaml');
    expect(code).toBe(0);
    expect(stdout).toMatchInlineSnapshot(`
      "harness plan: recursion-depth (nothing is spent)

        manifest      manifests/recursion-depth.yaml (digest b9c23f7ec3e2)
        spec          ../spec/sqlcsv
        executor      openai-compatible executor-model, family family-a, rung 3
        reviewer      openai-compatible reviewer-model, family family-b, rung 3
        independence  cross_family
        depth caps    1, 2, 3, 4
        matrix        4 caps x 2 arms (gated, ungated) x repetitions 2, 2, 4, 4 = 24 cells
        merges        2 attempts per assembling node, equal in every arm; each a merge and a review session
        budget        each leaf 800k tokens, each assembling node 800k beside its children's (the defaults; set budget: in the manifest); a tree's total follows the plan it makes
        max cost      none (max_cost_usd; max_sessions and the unit ceilings bound the bill)
        pairing       shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge

      Sessions if every tree uses its whole cap at projected_branching b = 4:

        cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound
        1         4         1             61     2      4       122         122M        $610
        2        16         5            273     2      4       546         546M      $2,730
        3        64        21          1,121     4      8     4,484        4.48B     $22,420
        4       256        85          4,513     4      8    18,052        18.1B     $90,260
        all                                            24    23,204        23.2B    $116,020

        Every figure comes from b = 4: a scenario, not a bound. A tree that stops shallow costs
        less; one that branches wider costs more.
        sessions/pair = leaves x [checker + worker + meta-verifier + verifier + 4 drift] + planning nodes x [planner],
                        once per pair (pairing: shared), + for each of the 2 arms: planning nodes x [checker + meta-verifier + 2 x (merger + review + 4 drift)].
        allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.
        pairing       = independent would be 34,200 sessions (+10,996 against shared).
        token bound   = sessions x unit.token_ceiling (1,000,000); it holds on every provider.
        cost bound    = sessions x unit.cost_ceiling_usd ($5.00); a flat-rate provider reports $0,
                        so only the token bound always holds.
        priced        = unknown: no provider configuration (pass --providers FILE or set RDH_PROVIDERS).

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (declare latency_s for models.executor-model (no provider configuration) and
        models.reviewer-model (no provider configuration), or plan --from a recorded run)).

      Ceiling: max_sessions 8,000 (from the manifest), the number the run enforces.
        The projection of 23,204 sessions exceeds it by 15,204; 16 of 24 cells fit.
        Likely unmeasured, in recording order (caps ascending, then repetition, then arm):
          cap 4: all 8 cells
        The ceiling is reached inside cap4-rep1-gated: its sessions are spent, it goes unmeasured,
        and the cells after it never start.
        Whole caps that fit: --depths 1,2,3 (5,152 sessions).

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 1  2 pairs  undetectable: no survival difference is large enough
        cap 2  2 pairs  undetectable: no survival difference is large enough
        cap 3  4 pairs  minimum detectable difference 0.53 (the normal approximation would say 0.35)
        cap 4  4 pairs  minimum detectable difference 0.53 (the normal approximation would say 0.35)

      Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%
      (paired two-sided t, exact noncentral t, SD of pair differences 0.250; pairs counted at every cap deep enough, an upper bound):
        levels >= 3 (primary): CANNOT detect δ = 0.1 at 80% power: 8 pairs at caps 3, 4 give 16.6% at alpha 0.05 (the smallest it detects is 0.289); about 52 pairs would be needed.
        level 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 12 pairs at caps 1, 2, 3, 4 give 15.7% at alpha 0.025 (the smallest it detects is 0.252); about 62 pairs would be needed.
        level 2 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 10 pairs at caps 2, 3, 4 give 12.7% at alpha 0.025 (the smallest it detects is 0.285); about 62 pairs would be needed.
        The design CANNOT detect δ on the primary comparison at the power wanted: add repetitions at the deep caps, or expect INCONCLUSIVE.

      Design search: the cheapest design whose primary comparison (levels >= 3, caps 3, 4) detects δ = 0.1 at alpha 0.05 with 80% power, SD of pair differences 0.250:
        a fixed design needs 52 pairs (exact noncentral t); the sequential design plans 53 (its
        inflation factor); widths searched: 4 (projected_branching: a scenario).

        design             width  pairs per cap (cap:pairs)  primary pairs  sessions  token bound  cost bound  wall time  power  fits
        manifest's         b = 4  1:2 2:2 3:4 4:4                        8    23,204        23.2B    $116,020    unknown  16.5%    NO
        largest that fits  b = 4  1:1 2:1 3:2 4:1                        3     7,089        7.09B     $35,445    unknown   7.2%   yes

        NO design within max_sessions and max_cost_usd reaches 80% power for δ = 0.1. The largest that
        fits detects a difference of 0.816 or more at that power; raise the ceilings, ask a larger
        smallest_difference, or expect INCONCLUSIVE. Its lines:
          repetitions:
            default: 1
            by_cap:
              3: 2
        Assumes each pair of the primary comparison spreads by the plan's SD whatever its cap or
        width, so the extra pairs go to the cheapest cap deep enough and every other cap keeps at most
        2 for the curve.
        Assumes the width is projected_branching (a scenario, not a bound): declare max_children to
        let plan search narrower trees.
        Assumes a sequential design plans the fixed design's pairs times its inflation factor; its
        expected pairs assume looks at equal fractions.
      "
    `);
  });

  it('stages the cheap end with a lowered ceiling, and says which cells would go unmeasured', async () => {
    const { code, stdout } = await run('plan', 'manifests/recursion-depth.yaml', '--depths', '2,1', '--max-sessions', '100');
    expect(code).toBe(0);
    expect(stdout).toMatchInlineSnapshot(`
      "harness plan: recursion-depth (nothing is spent)

        manifest      manifests/recursion-depth.yaml (digest b9c23f7ec3e2)
        spec          ../spec/sqlcsv
        executor      openai-compatible executor-model, family family-a, rung 3
        reviewer      openai-compatible reviewer-model, family family-b, rung 3
        independence  cross_family
        depth caps    1, 2 (--depths; the manifest declares 1, 2, 3, 4)
        matrix        2 caps x 2 arms (gated, ungated) x repetitions 2, 2 = 8 cells
        merges        2 attempts per assembling node, equal in every arm; each a merge and a review session
        budget        each leaf 800k tokens, each assembling node 800k beside its children's (the defaults; set budget: in the manifest); a tree's total follows the plan it makes
        max cost      none (max_cost_usd; max_sessions and the unit ceilings bound the bill)
        pairing       shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge

      Sessions if every tree uses its whole cap at projected_branching b = 4:

        cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound
        1         4         1             61     2      4       122         122M        $610
        2        16         5            273     2      4       546         546M      $2,730
        all                                             8       668         668M      $3,340

        Every figure comes from b = 4: a scenario, not a bound. A tree that stops shallow costs
        less; one that branches wider costs more.
        sessions/pair = leaves x [checker + worker + meta-verifier + verifier + 4 drift] + planning nodes x [planner],
                        once per pair (pairing: shared), + for each of the 2 arms: planning nodes x [checker + meta-verifier + 2 x (merger + review + 4 drift)].
        allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.
        pairing       = independent would be 1,000 sessions (+332 against shared).
        token bound   = sessions x unit.token_ceiling (1,000,000); it holds on every provider.
        cost bound    = sessions x unit.cost_ceiling_usd ($5.00); a flat-rate provider reports $0,
                        so only the token bound always holds.
        priced        = unknown: no provider configuration (pass --providers FILE or set RDH_PROVIDERS).

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (declare latency_s for models.executor-model (no provider configuration) and
        models.reviewer-model (no provider configuration), or plan --from a recorded run)).

      Ceiling: max_sessions 100 (--max-sessions; the manifest says 8,000), the number the run enforces.
        The projection of 668 sessions exceeds it by 568; 2 of 8 cells fit.
        Likely unmeasured, in recording order (caps ascending, then repetition, then arm):
          cap 1: 2 of 4 cells, from cap1-rep2-gated on
          cap 2: all 4 cells
        The ceiling is reached inside cap1-rep2-gated: its sessions are spent, it goes unmeasured,
        and the cells after it never start.

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 1  2 pairs  undetectable: no survival difference is large enough
        cap 2  2 pairs  undetectable: no survival difference is large enough

      Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%
      (paired two-sided t, exact noncentral t, SD of pair differences 0.250; pairs counted at every cap deep enough, an upper bound):
        levels >= 3 (primary): CANNOT detect δ = 0.1 at 80% power: 8 pairs at caps 3, 4 give 16.6% at alpha 0.05 (the smallest it detects is 0.289); about 52 pairs would be needed.
        level 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 12 pairs at caps 1, 2, 3, 4 give 15.7% at alpha 0.025 (the smallest it detects is 0.252); about 62 pairs would be needed.
        level 2 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 10 pairs at caps 2, 3, 4 give 12.7% at alpha 0.025 (the smallest it detects is 0.285); about 62 pairs would be needed.
        The design CANNOT detect δ on the primary comparison at the power wanted: add repetitions at the deep caps, or expect INCONCLUSIVE.

      Design search: the cheapest design whose primary comparison (levels >= 3, caps 3, 4) detects δ = 0.1 at alpha 0.05 with 80% power, SD of pair differences 0.250:
        a fixed design needs 52 pairs (exact noncentral t); the sequential design plans 53 (its
        inflation factor); widths searched: 4 (projected_branching: a scenario).

        design      width  pairs per cap (cap:pairs)  primary pairs  sessions  token bound  cost bound  wall time  power  fits
        manifest's  b = 4  1:2 2:2 3:4 4:4                        8    23,204        23.2B    $116,020    unknown  16.5%    NO

        NO design within max_sessions and max_cost_usd records even the curve's minimum; raise the
        ceilings.
        Assumes each pair of the primary comparison spreads by the plan's SD whatever its cap or
        width, so the extra pairs go to the cheapest cap deep enough and every other cap keeps at most
        2 for the curve.
        Assumes the width is projected_branching (a scenario, not a bound): declare max_children to
        let plan search narrower trees.
        Assumes a sequential design plans the fixed design's pairs times its inflation factor; its
        expected pairs assume looks at equal fractions.
      "
    `);
  });

  it('prices the sweep from a provider configuration, beside a ceiling the flag lowered', async () => {
    const { code, stdout } = await run('plan', 'manifests/recursion-depth.yaml', '--max-sessions', '2000', '--providers', 'manifests/providers.example.yaml');
    expect(code).toBe(0);
    expect(stdout).toMatchInlineSnapshot(`
      "harness plan: recursion-depth (nothing is spent)

        manifest      manifests/recursion-depth.yaml (digest b9c23f7ec3e2)
        spec          ../spec/sqlcsv
        executor      openai-compatible executor-model, family family-a, rung 3
        reviewer      openai-compatible reviewer-model, family family-b, rung 3
        independence  cross_family
        depth caps    1, 2, 3, 4
        matrix        4 caps x 2 arms (gated, ungated) x repetitions 2, 2, 4, 4 = 24 cells
        merges        2 attempts per assembling node, equal in every arm; each a merge and a review session
        budget        each leaf 800k tokens, each assembling node 800k beside its children's (the defaults; set budget: in the manifest); a tree's total follows the plan it makes
        max cost      none (max_cost_usd; max_sessions and the unit ceilings bound the bill)
        pairing       shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge

      Sessions if every tree uses its whole cap at projected_branching b = 4:

        cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound   priced
        1         4         1             61     2      4       122         122M        $610     $401
        2        16         5            273     2      4       546         546M      $2,730   $1,808
        3        64        21          1,121     4      8     4,484        4.48B     $22,420  $14,875
        4       256        85          4,513     4      8    18,052        18.1B     $90,260  $59,907
        all                                            24    23,204        23.2B    $116,020  $76,991

        Every figure comes from b = 4: a scenario, not a bound. A tree that stops shallow costs
        less; one that branches wider costs more.
        sessions/pair = leaves x [checker + worker + meta-verifier + verifier + 4 drift] + planning nodes x [planner],
                        once per pair (pairing: shared), + for each of the 2 arms: planning nodes x [checker + meta-verifier + 2 x (merger + review + 4 drift)].
        allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.
        pairing       = independent would be 34,200 sessions, $111,175 priced (+10,996 against shared).
        token bound   = sessions x unit.token_ceiling (1,000,000); it holds on every provider.
        cost bound    = sessions x unit.cost_ceiling_usd ($5.00); a flat-rate provider reports $0,
                        so only the token bound always holds.
        priced        = each session at its token ceiling, 10:1 input:output (as an earlier system
                        measured), no cached-input discount, capped at the cost ceiling, at the rates
                        of the pair the router sends its role to (per million input/output):
                        executor executor-model $3/$15: 18,820 sessions as planner, worker, checker,
                        merger, self_reviewer (the ungated merge's self-review), drift_judge;
                        reviewer reviewer-model $0/$0: 4,384 sessions as verifier (each leaf's re-run
                        and every meta-verifier), reviewer (the gated merge judge).

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (declare latency_s for gateway and local, or plan --from a recorded run)).

      Ceiling: max_sessions 2,000 (--max-sessions; the manifest says 8,000), the number the run enforces.
        The projection of 23,204 sessions exceeds it by 21,204; 10 of 24 cells fit.
        Likely unmeasured, in recording order (caps ascending, then repetition, then arm):
          cap 3: 6 of 8 cells, from cap3-rep2-gated on
          cap 4: all 8 cells
        The ceiling is reached inside cap3-rep2-gated: its sessions are spent, it goes unmeasured,
        and the cells after it never start.
        Whole caps that fit: --depths 1,2 (668 sessions).

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 1  2 pairs  undetectable: no survival difference is large enough
        cap 2  2 pairs  undetectable: no survival difference is large enough
        cap 3  4 pairs  minimum detectable difference 0.53 (the normal approximation would say 0.35)
        cap 4  4 pairs  minimum detectable difference 0.53 (the normal approximation would say 0.35)

      Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%
      (paired two-sided t, exact noncentral t, SD of pair differences 0.250; pairs counted at every cap deep enough, an upper bound):
        levels >= 3 (primary): CANNOT detect δ = 0.1 at 80% power: 8 pairs at caps 3, 4 give 16.6% at alpha 0.05 (the smallest it detects is 0.289); about 52 pairs would be needed.
        level 1 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 12 pairs at caps 1, 2, 3, 4 give 15.7% at alpha 0.025 (the smallest it detects is 0.252); about 62 pairs would be needed.
        level 2 (secondary, at alpha / m, Holm's strictest): CANNOT detect δ = 0.1 at 80% power: 10 pairs at caps 2, 3, 4 give 12.7% at alpha 0.025 (the smallest it detects is 0.285); about 62 pairs would be needed.
        The design CANNOT detect δ on the primary comparison at the power wanted: add repetitions at the deep caps, or expect INCONCLUSIVE.

      Design search: the cheapest design whose primary comparison (levels >= 3, caps 3, 4) detects δ = 0.1 at alpha 0.05 with 80% power, SD of pair differences 0.250:
        a fixed design needs 52 pairs (exact noncentral t); the sequential design plans 53 (its
        inflation factor); widths searched: 4 (projected_branching: a scenario).

        design      width  pairs per cap (cap:pairs)  primary pairs  sessions  token bound  cost bound   priced  wall time  power  fits
        manifest's  b = 4  1:2 2:2 3:4 4:4                        8    23,204        23.2B    $116,020  $76,991    unknown  16.5%    NO

        NO design within max_sessions and max_cost_usd records even the curve's minimum; raise the
        ceilings.
        Assumes each pair of the primary comparison spreads by the plan's SD whatever its cap or
        width, so the extra pairs go to the cheapest cap deep enough and every other cap keeps at most
        2 for the curve.
        Assumes the width is projected_branching (a scenario, not a bound): declare max_children to
        let plan search narrower trees.
        Assumes a sequential design plans the fixed design's pairs times its inflation factor; its
        expected pairs assume looks at equal fractions.
      "
    `);
  });

  it('prices each session at the pair the router sends it to: the verifiers, meta-verifiers and gated judges at the reviewer’s rates', async () => {
    // The example configuration, with a reviewer that costs something: $1/$5 against the executor's $3/$15.
    const example = await readFile('manifests/providers.example.yaml', 'utf8');
    const providers = await tmp.write('priced-providers.yaml', example.replace('price_usd_per_million: { input: 0, output: 0 }', 'price_usd_per_million: { input: 1, output: 5 }'));
    const { code, stdout } = await run('plan', 'manifests/recursion-depth.yaml', '--depths', '1', '--providers', providers);
    expect(code).toBe(0);
    // cap 1, b = 4, shared, 2 pairs: per pair the build's 8 leaf verifiers and meta-verifiers, the gated
    // arm's seam meta-verifier and 2 judges, the ungated arm's seam meta-verifier: 12 on the reviewer,
    // 49 on the executor. At the 1M-token ceiling, 10:1: $45/11 an executor session, $15/11 a reviewer's.
    // 2 x (49 x 45 + 12 x 15) / 11 = $433.64; pricing the verifiers at the executor's rate would say $488.18.
    const json = JSON.parse((await run('plan', 'manifests/recursion-depth.yaml', '--depths', '1', '--providers', providers, '--json')).stdout);
    expect(json.projection.total).toMatchObject({ sessions: 122, sessionsByPair: { executor: 98, reviewer: 24 } });
    expect(json.projection.total.pricedUsd).toBeCloseTo((98 * 45 + 24 * 15) / 11, 6);
    const lines = stdout.split('\n');
    const priced = lines.slice(lines.findIndex((l) => l.includes('priced        =')), lines.findIndex((l) => l.startsWith('Ceiling:')) - 1);
    const table = lines.slice(lines.findIndex((l) => l.startsWith('  cap  leaves')), lines.findIndex((l) => l.startsWith('  all')) + 1);
    expect([...table, ...priced].join('\n')).toMatchInlineSnapshot(`
      "  cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound  priced
        1         4         1             61     2      4       122         122M        $610    $434
        all                                             4       122         122M        $610    $434
        priced        = each session at its token ceiling, 10:1 input:output (as an earlier system
                        measured), no cached-input discount, capped at the cost ceiling, at the rates
                        of the pair the router sends its role to (per million input/output):
                        executor executor-model $3/$15: 98 sessions as planner, worker, checker,
                        merger, self_reviewer (the ungated merge's self-review), drift_judge;
                        reviewer reviewer-model $1/$5: 24 sessions as verifier (each leaf's re-run and
                        every meta-verifier), reviewer (the gated merge judge).

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (declare latency_s for gateway and local, or plan --from a recorded run))."
    `);
  });

  it('finds the provider configuration through RDH_PROVIDERS when no flag names one', async () => {
    vi.stubEnv('RDH_PROVIDERS', 'manifests/providers.example.yaml');
    try {
      const { code, stdout } = await run('plan', 'manifests/recursion-depth.yaml', '--depths', '1');
      expect(code).toBe(0);
      expect(stdout).toContain('priced        = each session at its token ceiling');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('says so when the ceiling cuts only the last cell', async () => {
    const { code, stdout } = await run('plan', 'manifests/smoke.yaml', '--depths', '2', '--max-sessions', '30');
    expect(code).toBe(0);
    expect(stdout.slice(stdout.indexOf('Ceiling:'))).toMatchInlineSnapshot(`
      "Ceiling: max_sessions 30 (--max-sessions; the manifest says 241), the number the run enforces.
        The projection of 119 sessions exceeds it by 89; 0 of 2 cells fit.
        Likely unmeasured, in recording order (caps ascending, then repetition, then arm):
          cap 2: all 2 cells
        The ceiling is reached inside cap2-rep1-gated: its sessions are spent, it goes unmeasured,
        and the cells after it never start.

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 2  1 pair  no test (one pair: a paired t test needs at least 2)
      "
    `);
  });

  it('gives the same data as JSON', async () => {
    const { code, stdout } = await run('plan', 'manifests/smoke.yaml', '--depths', '2', '--max-sessions', '30', '--json');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchInlineSnapshot(`
      {
        "arms": [
          "gated",
          "ungated",
        ],
        "budget": {
          "assemblyTokens": 800000,
          "declared": false,
          "leafTokens": 800000,
        },
        "caveats": [],
        "depths": {
          "declared": [
            1,
            2,
          ],
          "selected": [
            2,
          ],
        },
        "executor": {
          "family": "sim-alpha",
          "model": "sim-executor",
          "provider": "sim",
          "rung": 1,
        },
        "independence": "cross_family",
        "manifest": {
          "digest": "355342fd2d197debbd28ba0e66d648a3d6e5829caee01a1fcbe66d9dbb1de2db",
          "file": "manifests/smoke.yaml",
          "name": "smoke",
          "spec": "../spec/sqlcsv",
          "specDir": "spec/sqlcsv",
        },
        "maxSessions": {
          "enforced": 30,
          "lowered": true,
          "manifest": 241,
        },
        "otherPairing": {
          "costBoundUsd": 154,
          "countable": true,
          "pairing": "independent",
          "pricedUsd": 0,
          "sessions": 154,
          "tokenBound": 30800000,
        },
        "power": {
          "alpha": 0.05,
          "caps": [
            {
              "cap": 2,
              "mde": {
                "kind": "none",
                "pairs": 1,
                "reason": "one pair: a paired t test needs at least 2",
              },
              "pairs": 1,
              "text": "no test (one pair: a paired t test needs at least 2)",
            },
          ],
          "power": 0.8,
          "sd": 0.25,
          "source": {
            "kind": "manifest",
            "named": false,
          },
        },
        "pricing": {
          "executor": {
            "input": 0,
            "output": 0,
          },
          "inputPerOutput": 10,
          "known": true,
          "reviewer": {
            "input": 0,
            "output": 0,
          },
        },
        "projection": {
          "branching": 2,
          "caps": [
            {
              "cap": 2,
              "cells": 2,
              "costBoundUsd": 119,
              "leaves": 4,
              "perCell": {
                "allowance": 40,
                "build": 16,
                "merge": 12,
                "planning": 3,
                "required": 37,
                "review": 6,
                "total": 77,
              },
              "perPair": {
                "arms": 2,
                "buildPerTree": 35,
                "mergesPerArm": 42,
                "pairing": "shared",
                "required": 55,
                "total": 119,
              },
              "planningNodes": 3,
              "pricedUsd": 0,
              "repetitions": 1,
              "sessions": 119,
              "sessionsByPair": {
                "executor": 99,
                "reviewer": 20,
              },
              "tokenBound": 23800000,
            },
          ],
          "ceiling": {
            "exceeded": true,
            "maxSessions": 30,
            "measured": 0,
            "overBy": 89,
            "unmeasured": [
              {
                "arm": "gated",
                "cap": 2,
                "cumulative": 77,
                "fate": "stops_inside",
                "id": "cap2-rep1-gated",
                "repetition": 1,
                "sessions": 77,
              },
              {
                "arm": "ungated",
                "cap": 2,
                "cumulative": 119,
                "fate": "not_started",
                "id": "cap2-rep1-ungated",
                "repetition": 1,
                "sessions": 42,
              },
            ],
          },
          "cells": [
            {
              "arm": "gated",
              "cap": 2,
              "cumulative": 77,
              "fate": "stops_inside",
              "id": "cap2-rep1-gated",
              "repetition": 1,
              "sessions": 77,
            },
            {
              "arm": "ungated",
              "cap": 2,
              "cumulative": 119,
              "fate": "not_started",
              "id": "cap2-rep1-ungated",
              "repetition": 1,
              "sessions": 42,
            },
          ],
          "leafGradings": {
            "caps": [
              {
                "cap": 2,
                "gradings": 4,
                "leaves": 4,
                "repetitions": 1,
                "seconds": 68,
                "treesPerPair": 1,
              },
            ],
            "secondsPerGrading": 17,
            "source": "simulated",
            "total": {
              "gradings": 4,
              "seconds": 68,
            },
          },
          "mergeAttempts": 2,
          "mergeGradings": {
            "caps": [
              {
                "assemblingNodes": 3,
                "cap": 2,
                "extra": 4,
                "extraPerPair": 4,
                "gradingsPerPair": 6,
                "repetitions": 1,
                "seconds": 68,
              },
            ],
            "secondsPerGrading": 17,
            "source": "simulated",
            "total": {
              "extra": 4,
              "gradings": 6,
              "seconds": 68,
            },
          },
          "pairing": "shared",
          "total": {
            "cells": 2,
            "costBoundUsd": 119,
            "pricedUsd": 0,
            "sessions": 119,
            "sessionsByPair": {
              "executor": 99,
              "reviewer": 20,
            },
            "tokenBound": 23800000,
          },
        },
        "reviewer": {
          "family": "sim-beta",
          "model": "sim-reviewer",
          "provider": "sim",
          "rung": 1,
        },
        "simulated": {
          "branching": {
            "2": 0.5,
            "3": 0.5,
          },
          "early_leaf_rate": 0.1,
          "judge_recall": 0.9,
          "leaf_defect_rate": 0.05,
          "non_delivery_rate": 0.05,
          "repair_rate": 0.9,
          "seam_defect_rate": 0.8,
          "seed": 11,
          "self_review_recall": 0.1,
          "unresolved_claim_rate": 0.05,
        },
        "unit": {
          "cost_ceiling_usd": 1,
          "max_turns": 20,
          "token_ceiling": 200000,
        },
        "version": 1,
        "wallTime": {
          "plan": {
            "basis": [
              {
                "callsPerSession": {
                  "source": "assumed",
                  "value": 6,
                },
                "pair": "executor",
                "provider": {
                  "id": "sim",
                  "name": "sim (in process)",
                },
                "sessions": 99,
                "tokensPerCall": {
                  "source": "assumed",
                  "value": 33333.333333,
                },
              },
              {
                "callsPerSession": {
                  "source": "assumed",
                  "value": 6,
                },
                "pair": "reviewer",
                "provider": {
                  "id": "sim",
                  "name": "sim (in process)",
                },
                "sessions": 20,
                "tokensPerCall": {
                  "source": "assumed",
                  "value": 33333.333333,
                },
              },
            ],
            "status": "unknown",
            "why": "nothing declared or measured bounds it (no rate_limit; no seconds a session takes (plan --from a recorded run))",
          },
        },
      }
    `);
  });
});

describe('harness plan: other manifests', () => {
  it('counts the oracle gradings grade_merges adds: every assembling node in each arm beyond the root grade, per cap and in all (cap 4, b = 4: 170 per pair)', async () => {
    const file = await tmp.write('grade-merges.yaml', yamlOf(patched(VALID_MANIFEST, { grade_merges: true, projected_branching: 4, depth_caps: [2, 4], repetitions: { default: 3, by_cap: { 3: undefined, 4: 1 } } })));
    const { code, stdout } = await run('plan', file);
    expect(code).toBe(0);
    expect(stdout.slice(stdout.indexOf('Merge gradings'), stdout.indexOf('Ceiling:'))).toMatchInlineSnapshot(`
      "Merge gradings (grade_merges on, set in the manifest): every assembled node's tree is graded by
        the oracle as the root's is, in each arm; no model calls, so no sessions, tokens or dollars.

        cap  assembling  gradings/pair  extra/pair  reps  extra  grading time
        2             5             10           8     3     24        6m 48s
        4            85            170         168     1    168       47m 36s
        all                                                 192       54m 24s

        gradings/pair = assembling nodes x 2 arms; extra leaves out the root grade every cell makes anyway.
        grading time  = extra x 17 s, the mean of runs/example-sim's four root gradings; serial, so
                        concurrency divides it.

      "
    `);
    const json = await run('plan', file, '--json');
    expect(JSON.parse(json.stdout).projection.mergeGradings).toMatchInlineSnapshot(`
      {
        "caps": [
          {
            "assemblingNodes": 5,
            "cap": 2,
            "extra": 24,
            "extraPerPair": 8,
            "gradingsPerPair": 10,
            "repetitions": 3,
            "seconds": 408,
          },
          {
            "assemblingNodes": 85,
            "cap": 4,
            "extra": 168,
            "extraPerPair": 168,
            "gradingsPerPair": 170,
            "repetitions": 1,
            "seconds": 2856,
          },
        ],
        "secondsPerGrading": 17,
        "source": "manifest",
        "total": {
          "extra": 192,
          "gradings": 200,
          "seconds": 3264,
        },
      }
    `);
  });

  it('prints no merge gradings when grade_merges resolves off: a real sweep by default, or a SIMULATED one that turns it off', async () => {
    const real = await tmp.write('real.yaml', yamlOf(patched(VALID_MANIFEST, { projected_branching: 4, depth_caps: [4], repetitions: { by_cap: { 3: undefined } } })));
    const smoke = (await readFile('manifests/smoke.yaml', 'utf8')).replace('pairing: shared', 'pairing: shared\ngrade_merges: false').replace('spec: ../spec/sqlcsv', `spec: ${path.resolve('spec/sqlcsv')}`);
    const simOff = await tmp.write('smoke-off.yaml', smoke);
    for (const file of [real, simOff]) {
      const text = await run('plan', file);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).not.toContain('Merge gradings');
      expect(text.stdout).not.toContain('grade_merges');
      const json = await run('plan', file, '--json');
      expect(JSON.parse(json.stdout).projection).not.toHaveProperty('mergeGradings');
    }
  });

  it('shows the same_family caveat, and rounds the figures a fractional branching produces', async () => {
    const file = await tmp.write(
      'same-family.yaml',
      yamlOf(patched(VALID_MANIFEST, { independence: 'same_family', reviewer: { family: 'family-a' }, projected_branching: 4.4, depth_caps: [3], repetitions: { default: 1, by_cap: {} }, arms: ['gated'] })),
    );
    const { code, stdout } = await run('plan', file);
    expect(code).toBe(0);
    expect(stdout).toMatchInlineSnapshot(`
      "harness plan: fixture (nothing is spent)
      CAVEAT: SAME FAMILY: executor and reviewer are both from family "family-a", so the gated arm's
        judge is not independent of the work it judges; a judge favours its own family's output, which
        biases the difference between the arms toward zero.

        manifest      <tmp>/same-family.yaml (digest 983e32c128db)
        spec          ./spec
        executor      openai-compatible executor-model, family family-a, rung 3
        reviewer      openai-compatible reviewer-model, family family-a, rung 3
        independence  same_family
        depth caps    3
        matrix        1 cap x 1 arm (gated) x repetitions 2 = 2 cells
        merges        2 attempts per assembling node, equal in every arm; each a merge and a review session
        budget        each leaf 800k tokens, each assembling node 800k beside its children's (the defaults; set budget: in the manifest); a tree's total follows the plan it makes
        max cost      none (max_cost_usd; max_sessions and the unit ceilings bound the bill)
        pairing       shared: the arms of a pair share one planned tree and its leaves, and diverge at the first merge

      Sessions if every tree uses its whole cap at projected_branching b = 4.4:

        cap  leaves  planning  sessions/pair  reps  cells  sessions  token bound  cost bound
        3        85        25          1,053     2      2     2,106        2.11B     $10,529
        all                                             2     2,106        2.11B     $10,529

        Every figure comes from b = 4.4: a scenario, not a bound. A tree that stops shallow costs
        less; one that branches wider costs more.
        sessions/pair = leaves x [checker + worker + meta-verifier + verifier + 4 drift] + planning nodes x [planner],
                        once per pair (pairing: shared), + for its one arm: planning nodes x [checker + meta-verifier + 2 x (merger + review + 4 drift)].
        allowance     = "drift" is the most drift-judge sessions a worker or merger loop opens (consulted on a trigger, never past it); the court opens the rest always.
        pairing       = one arm is recorded, so shared and independent cost the same.
        token bound   = sessions x unit.token_ceiling (1,000,000); it holds on every provider.
        cost bound    = sessions x unit.cost_ceiling_usd ($5.00); a flat-rate provider reports $0,
                        so only the token bound always holds.
        priced        = unknown: no provider configuration (pass --providers FILE or set RDH_PROVIDERS).

      Wall time: cannot forecast, nothing declared or measured bounds it (no rate_limit; no seconds a
        session takes (declare latency_s for models.executor-model (no provider configuration) and
        models.reviewer-model (no provider configuration), or plan --from a recorded run)).

      Ceiling: max_sessions 1,000 (from the manifest), the number the run enforces.
        The projection of 2,106 sessions exceeds it by 1,106; 0 of 2 cells fit.
        Likely unmeasured, in recording order (caps ascending, then repetition, then arm):
          cap 3: all 2 cells
        The ceiling is reached inside cap3-rep1-gated: its sessions are spent, it goes unmeasured,
        and the cells after it never start.

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.250: the default of analysis.pair_difference_sd (an earlier system's
        spread); record caps 1-2 and use --from runs/NAME to measure it.
        cap 3  2 pairs  no test (one arm only, so there is no pair to difference)
      "
    `);
  });

  it('shows per-command help with defaults', async () => {
    const { code, stdout } = await run('plan', '--help');
    expect(code).toBe(0);
    expect(stdout).toMatchInlineSnapshot(`
      "Usage: harness plan [options] <manifest>

      print the matrix (cap x arm x repetition cells) and the bill of a sweep,
      spending nothing

      Arguments:
        manifest            sweep manifest (YAML), e.g. manifests/smoke.yaml

      Options:
        --depths <caps>     only these caps, comma-separated, e.g. 1,2 (default: every
                            cap in the manifest)
        --max-sessions <n>  lower the session ceiling for this run; never above the
                            manifest's (default: the manifest's max_sessions)
        --providers <file>  provider configuration, for prices and the real-family
                            check (default: $RDH_PROVIDERS, else none)
        --from <run>        a recorded run folder (runs/NAME): forecast the cells
                            still to record from what its measured cells cost, and
                            size power with its measured spread (default: none)
        --json              print the plan as one JSON object (default: false)
        -h, --help          display help for command

      The bill assumes every tree uses its whole cap at the manifest's
      projected_branching: a scenario to size the ceiling against, not a bound.
      With max_children set, the bill uses it instead and its figures are bounds
      (at most max_children^d leaves at cap d; docs/branching.md).
      --from runs/NAME prints a forecast learned from recorded cells beside it.
      Exit code 2: a bad flag, manifest or provider configuration; nothing is written.

      "
    `);
  });
});

/** Each case: a name, the manifest text (or null for none written), and extra argv. */
type BadCase = [name: string, manifest: string | null, argv?: string[]];
const bad = (patch: Record<string, unknown>) => yamlOf(patched(VALID_MANIFEST, patch));
const valid = yamlOf(VALID_MANIFEST);

const BAD_CASES: BadCase[] = [
  ['version from the future', bad({ version: 2 })],
  ['name missing', bad({ name: undefined })],
  ['name with a space', bad({ name: 'my sweep' })],
  ['spec missing', bad({ spec: undefined })],
  ['spec folder absent', bad({ spec: './nowhere' })],
  ['cap of zero', bad({ depth_caps: [1, 0, 3] })],
  ['fractional cap', bad({ depth_caps: [1, 2.5, 3] })],
  ['cap listed twice', bad({ depth_caps: [1, 3, 3] })],
  ['no caps', bad({ depth_caps: [] })],
  ['caps as text', bad({ depth_caps: '1,2,3' })],
  ['zero repetitions', bad({ repetitions: { default: 0 } })],
  ['negative repetitions for a cap', bad({ repetitions: { by_cap: { 3: -1 } } })],
  ['repetitions for a cap not swept', bad({ repetitions: { by_cap: { 5: 2 } } })],
  ['repetitions keyed by a word', bad({ repetitions: { by_cap: { three: 2 } } })],
  ['repetitions as one number', bad({ repetitions: 3 })],
  ['misspelt arm', bad({ arms: ['gated', 'ungatd'] })],
  ['arm listed twice', bad({ arms: ['gated', 'gated'] })],
  ['no arms', bad({ arms: [] })],
  ['unknown provider kind', bad({ executor: { provider: 'openai' } })],
  ['rung of zero', bad({ executor: { rung: 0 } })],
  ['identical pairs', bad({ reviewer: { model: 'executor-model' } })],
  ['cross_family without a family', bad({ executor: { family: undefined } })],
  ['cross_family with one family', bad({ reviewer: { family: 'family-a' } })],
  ['same_family with two families', bad({ independence: 'same_family' })],
  ['misspelt independence', bad({ independence: 'cross-family' })],
  ['unknown top-level field', bad({ max_session: 5 })],
  ['a key pasted into a pair', bad({ executor: { api_key: 'sk-abc123abc123abc123abc123' } })],
  ['fractional merge attempts', bad({ merge_attempts: 1.5 })],
  ['negative token ceiling', bad({ unit: { token_ceiling: -5 } })],
  ['zero cost ceiling', bad({ unit: { cost_ceiling_usd: 0 } })],
  ['no session ceiling', bad({ max_sessions: undefined })],
  ['branching of one', bad({ projected_branching: 1 })],
  ['branching as a word', bad({ projected_branching: 'four' })],
  ['a recall above one', bad({ simulated: { judge_recall: 1.5 } })],
  ['zero concurrency', bad({ concurrency: 0 })],
  ['YAML syntax error', valid.replace('name: fixture', 'name: "fixture')],
  ['YAML key written twice', `${valid}name: again\n`],
  ['empty file', ''],
  ['a list, not a mapping', '- 1\n- 2\n'],
  ['no such manifest', null],
  ['--depths with a word', valid, ['--depths', '1,x']],
  ['--depths with a cap not in the manifest', valid, ['--depths', '1,5']],
  ['--depths of zero', valid, ['--depths', '0']],
  ['--max-sessions of zero', valid, ['--max-sessions', '0']],
  ['--max-sessions as a word', valid, ['--max-sessions', 'lots']],
  ['--max-sessions above the manifest', valid, ['--max-sessions', '5000']],
  ['misspelt --max-sessions', valid, ['--max-session', '5']],
  ['unknown flag', valid, ['--jsn']],
  ['--providers file absent', valid, ['--providers', 'nowhere.yaml']],
];

describe('harness plan: refusals', () => {
  it(`refuses ${BAD_CASES.length} bad manifests and flags, each with one line naming the field and the fix, exit 2, nothing written`, async () => {
    const before = await tmp.listing();
    const results: string[] = [];
    for (const [i, [name, text, argv = []]] of BAD_CASES.entries()) {
      const file = text === null ? `${tmp.dir}/missing.yaml` : await tmp.write(`bad-${i}.yaml`, text);
      const { code, stdout, stderr } = await run('plan', file, ...argv);
      expect({ name, code, stdout }).toEqual({ name, code: 2, stdout: '' });
      expect(stderr.trimEnd().split('\n'), name).toHaveLength(1);
      results.push(`${name}: ${stderr.trimEnd()}`);
    }
    const written = BAD_CASES.map((_, i) => `bad-${i}.yaml`).filter((_, i) => BAD_CASES[i]![1] !== null);
    expect((await tmp.listing()).filter((f) => !written.includes(f) && !before.includes(f))).toEqual([]);
    expect(results).toMatchInlineSnapshot(`
      [
        "version from the future: harness: <tmp>/bad-0.yaml:1: version: expected 1, got 2; e.g. version: 1",
        "name missing: harness: <tmp>/bad-1.yaml:1: name: missing; add it, e.g. name: recursion-depth",
        "name with a space: harness: <tmp>/bad-2.yaml:2: name: "my sweep" uses characters other than letters, digits, ".", "_" and "-" (or does not start with a letter or digit); e.g. name: recursion-depth",
        "spec missing: harness: <tmp>/bad-3.yaml:1: spec: missing; add it, e.g. spec: ../spec/my-task",
        "spec folder absent: harness: <tmp>/bad-4.yaml:3: spec: "./nowhere" does not exist (looked at <tmp>/nowhere); spec is relative to the manifest's own folder, <tmp>",
        "cap of zero: harness: <tmp>/bad-5.yaml:6: depth_caps[1]: must be a positive whole number, got 0; e.g. depth_caps: [1, 2, 3, 4]",
        "fractional cap: harness: <tmp>/bad-6.yaml:6: depth_caps[1]: must be a whole number, got 2.5; e.g. depth_caps: [1, 2, 3, 4]",
        "cap listed twice: harness: <tmp>/bad-7.yaml:7: depth_caps[2]: 3 appears twice; list each cap once",
        "no caps: harness: <tmp>/bad-8.yaml:4: depth_caps: must not be empty; e.g. depth_caps: [1, 2, 3, 4]",
        "caps as text: harness: <tmp>/bad-9.yaml:4: depth_caps: expected a list, got "1,2,3"; e.g. depth_caps: [1, 2, 3, 4]",
        "zero repetitions: harness: <tmp>/bad-10.yaml:9: repetitions.default: must be a positive whole number, got 0; e.g. default: 2",
        "negative repetitions for a cap: harness: <tmp>/bad-11.yaml:11: repetitions.by_cap.3: must be a positive whole number, got -1; e.g. by_cap: {3: 4, 4: 4}",
        "repetitions for a cap not swept: harness: <tmp>/bad-12.yaml:12: repetitions.by_cap.5: cap 5 is not in depth_caps [1, 2, 3]; add it to depth_caps or remove this override",
        "repetitions keyed by a word: harness: <tmp>/bad-13.yaml:12: repetitions.by_cap.three: "three" is not a depth cap (a positive whole number); e.g. by_cap: {3: 4, 4: 4}",
        "repetitions as one number: harness: <tmp>/bad-14.yaml:8: repetitions: expected a mapping, got 3; e.g. repetitions: {default: 2, by_cap: {3: 4, 4: 4}}",
        "misspelt arm: harness: <tmp>/bad-15.yaml:14: arms[1]: expected one of gated, ungated, got "ungatd"; did you mean ungated?",
        "arm listed twice: harness: <tmp>/bad-16.yaml:14: arms[1]: "gated" appears twice; list each arm once",
        "no arms: harness: <tmp>/bad-17.yaml:12: arms: must not be empty; e.g. arms: [gated, ungated]",
        "unknown provider kind: harness: <tmp>/bad-18.yaml:16: executor.provider: expected one of sim, openai-compatible, got "openai"; e.g. provider: openai-compatible",
        "rung of zero: harness: <tmp>/bad-19.yaml:19: executor.rung: must be a positive whole number, got 0; e.g. rung: 3",
        "identical pairs: harness: <tmp>/bad-20.yaml:20: reviewer: same provider and model as executor (openai-compatible executor-model); a pair cannot judge its own work, so name a different reviewer model",
        "cross_family without a family: harness: <tmp>/bad-21.yaml:15: executor.family: missing, but independence: cross_family needs both pairs to declare a family; add executor.family, or claim independence: same_family",
        "cross_family with one family: harness: <tmp>/bad-22.yaml:23: reviewer.family: "family-a" is also executor.family, which contradicts independence: cross_family; use a reviewer from another family, or claim independence: same_family",
        "same_family with two families: harness: <tmp>/bad-23.yaml:25: independence: same_family, but executor.family "family-a" differs from reviewer.family "family-b"; claim independence: cross_family, or correct the families",
        "misspelt independence: harness: <tmp>/bad-24.yaml:25: independence: expected one of cross_family, same_family, got "cross-family"; did you mean cross_family?",
        "unknown top-level field: harness: <tmp>/bad-25.yaml:41: max_session: unknown field; did you mean "max_sessions"? Rename or remove it",
        "a key pasted into a pair: harness: <tmp>/bad-26.yaml:20: executor.api_key: unknown field, and it looks like a credential; never write a key in a file: export it as an environment variable and name the variable in the provider configuration (api_key_env)",
        "fractional merge attempts: harness: <tmp>/bad-27.yaml:26: merge_attempts: must be a whole number, got 1.5; e.g. merge_attempts: 2",
        "negative token ceiling: harness: <tmp>/bad-28.yaml:29: unit.token_ceiling: must be a positive whole number, got -5; e.g. token_ceiling: 1000000",
        "zero cost ceiling: harness: <tmp>/bad-29.yaml:30: unit.cost_ceiling_usd: must be positive, got 0; e.g. cost_ceiling_usd: 5",
        "no session ceiling: harness: <tmp>/bad-30.yaml:1: max_sessions: missing; add it, e.g. max_sessions: 8000",
        "branching of one: harness: <tmp>/bad-31.yaml:32: projected_branching: must be greater than 1, got 1; e.g. projected_branching: 4",
        "branching as a word: harness: <tmp>/bad-32.yaml:32: projected_branching: expected a number, got "four"; e.g. projected_branching: 4",
        "a recall above one: harness: <tmp>/bad-33.yaml:38: simulated.judge_recall: must be at most 1, got 1.5; e.g. judge_recall: 0.8",
        "zero concurrency: harness: <tmp>/bad-34.yaml:33: concurrency: must be a positive whole number, got 0; e.g. concurrency: 4",
        "YAML syntax error: harness: <tmp>/bad-35.yaml:2:15: YAML syntax error: Missing closing "quote; close the quote or bracket opened before this point",
        "YAML key written twice: harness: <tmp>/bad-36.yaml:41:1: name is written twice in the top level, on lines 2 and 41; each key may appear once: remove or rename one of them",
        "empty file: harness: <tmp>/bad-37.yaml: the manifest is empty; write its fields (copy manifests/smoke.yaml to start)",
        "a list, not a mapping: harness: <tmp>/bad-38.yaml:1: (top level): expected a mapping of fields, got a list; write the manifest as \`field: value\` lines (copy manifests/smoke.yaml to start)",
        "no such manifest: harness: <tmp>/missing.yaml: cannot read the manifest: no such file; check the path (copy manifests/smoke.yaml to start)",
        "--depths with a word: error: option '--depths <caps>' argument '1,x' is invalid. expected caps as whole numbers of at least 1 separated by commas, e.g. 1,2; got "1,x".",
        "--depths with a cap not in the manifest: harness: --depths: cap 5 is not in <tmp>/bad-41.yaml; its caps are 1, 2, 3",
        "--depths of zero: error: option '--depths <caps>' argument '0' is invalid. expected caps as whole numbers of at least 1 separated by commas, e.g. 1,2; got "0".",
        "--max-sessions of zero: error: option '--max-sessions <n>' argument '0' is invalid. expected a whole number of at least 1, got "0".",
        "--max-sessions as a word: error: option '--max-sessions <n>' argument 'lots' is invalid. expected a whole number of at least 1, got "lots".",
        "--max-sessions above the manifest: harness: --max-sessions 5000 is above max_sessions 1000 in <tmp>/bad-45.yaml; the flag can only lower the ceiling; to raise it, edit max_sessions in the manifest (which makes it a different sweep, with a new digest)",
        "misspelt --max-sessions: error: unknown option '--max-session' (Did you mean --max-sessions?)",
        "unknown flag: error: unknown option '--jsn' (Did you mean --json?)",
        "--providers file absent: harness: nowhere.yaml: cannot read the provider configuration: no such file; check the path (copy manifests/providers.example.yaml to start)",
      ]
    `);
  });

  it('refuses a missing manifest argument as a usage error', async () => {
    const { code, stderr } = await run('plan');
    expect(code).toBe(2);
    expect(stderr).toMatchInlineSnapshot(`
      "error: missing required argument 'manifest'
      "
    `);
  });

  it('lists every problem at once, one line each, so a person fixes them in one pass', async () => {
    const file = await tmp.write('many.yaml', bad({ version: 3, depth_caps: [0, 2], arms: ['both'], concurrency: 'many' }));
    const { code, stderr } = await run('plan', file);
    expect(code).toBe(2);
    expect(stderr).toMatchInlineSnapshot(`
      "harness: <tmp>/many.yaml:1: version: expected 1, got 3; e.g. version: 1
      <tmp>/many.yaml:5: depth_caps[0]: must be a positive whole number, got 0; e.g. depth_caps: [1, 2, 3, 4]
      <tmp>/many.yaml:12: arms[0]: expected one of gated, ungated, got "both"; e.g. arms: [gated, ungated]
      <tmp>/many.yaml:31: concurrency: "many" is not MIN-START-MAX (three whole numbers, e.g. "4-20-100"), nor a whole number; e.g. concurrency: 4
      "
    `);
  });
});
