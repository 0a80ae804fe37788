import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cellId, expectedTree, learnCostModel, runCli } from '../../../harness/index.js';
import { bufferIo, isolatedDefects } from '../../../harness/testing.js';
import { simRun } from '../report/run-fixture.js';
import { simCells, type SimDesign } from '../report/sim-sweep.js';
import { SPEC_IDS } from '../../support/spec-ids.js';

/** `harness plan MANIFEST --from runs/NAME`: the learned forecast beside the declared scenario, and power from the run's spread. */

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** A simulated run of caps 1-2, 3 pairs each: the cheap end of the recursion-depth sweep. */
const DESIGN: SimDesign = { params: { seed: 9 }, caps: [1, 2], repetitions: 3, mergeAttempts: 2, defects: isolatedDefects(SPEC_IDS) };

describe('harness plan --from', () => {
  it('forecasts the cells still to record from the run, beside the declared scenario, and sizes power with the run’s spread', async () => {
    // The report wraps its lines around the run's path: a path of fixed length keeps the snapshot's breaks.
    const { dir } = await simRun(DESIGN, simCells(DESIGN), { pathLength: 100 });
    const { code, stdout, stderr } = await run('plan', path.join(REPO_ROOT, 'manifests/recursion-depth.yaml'), '--from', dir);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const tail = stdout.slice(stdout.indexOf('Forecast learned from')).replaceAll(dir, '<run>');
    expect(tail).toMatchInlineSnapshot(`
      "Forecast learned from <run>:
        12 measured cells at caps 1, 2; 8 of this plan's cells already measured.
        NOTE: that run recorded another manifest; the forecast assumes the same agents and spec.
        shape    measured: level 0 split 100% of 6 nodes, 2.67 children; level 1 split 100% of 9 nodes, 2.33 children; deeper levels take level 1's
        room     nodes may split at level <= cap - 1 (measured)
        per node sessions: leaf 3.0; planning 1.0; merges gated 3.9; ungated 4.0

        cap  cells to record  declared sessions (b = 4, full trees)  forecast sessions  forecast tokens (in / out)  forecast cost
        3                  8                                  6,616                525               10.5M / 1.05M          $0.00
        4                  8                                 26,584              1,272               25.4M / 2.54M          $0.00
        all               16                                 33,200              1,797               35.9M / 3.59M          $0.00

        declared = the manifest's scenario; forecast = learned from the run (expected shape x measured sessions per node x
        measured spend per session; a pair's planning and leaves once under shared pairing). Both are estimates.

      Wall time of the cells left, from
        <run>:
        cannot forecast, the run records no finished session, so nothing was measured.

      Power: the smallest gated - ungated survival difference each cap can detect (paired t test,
        alpha 0.05, 80% power, exact noncentral t).
        SD of pair differences 0.057: measured in
        <run>
        (cap 1: 3 pairs, SD 0.075; cap 2: 3 pairs, SD 0.027).
        cap 1  2 pairs  minimum detectable difference 0.65 (the normal approximation would say 0.11)
        cap 2  2 pairs  minimum detectable difference 0.65 (the normal approximation would say 0.11)
        cap 3  4 pairs  minimum detectable difference 0.12 (the normal approximation would say 0.08)
        cap 4  4 pairs  minimum detectable difference 0.12 (the normal approximation would say 0.08)

      Pre-registered hypothesis: gated − ungated survival, smallest difference that matters δ = 0.1, alpha 0.05, power wanted 80%
      (paired two-sided t, exact noncentral t, SD of pair differences 0.057; pairs counted at every cap deep enough, an upper bound):
        levels >= 3 (primary): can detect δ = 0.1: 8 pairs at caps 3, 4 give 98.9% power at alpha 0.05 (80% wanted; the smallest it detects is 0.065).
        level 1 (secondary, at alpha / m, Holm's strictest): can detect δ = 0.1: 12 pairs at caps 1, 2, 3, 4 give over 99.9% power at alpha 0.025 (80% wanted; the smallest it detects is 0.057).
        level 2 (secondary, at alpha / m, Holm's strictest): can detect δ = 0.1: 10 pairs at caps 2, 3, 4 give 99.4% power at alpha 0.025 (80% wanted; the smallest it detects is 0.064).
        The design can detect δ on the primary comparison at the power wanted.

      Design search: the cheapest design whose primary comparison (levels >= 3, caps 3, 4) detects δ = 0.1 at alpha 0.05 with 80% power, SD of pair differences 0.057:
        a fixed design needs 5 pairs (exact noncentral t); the sequential design plans 6 (its
        inflation factor); widths searched: 4 (projected_branching: a scenario).

        design             width  pairs per cap (cap:pairs)  primary pairs  sessions  token bound  cost bound  wall time  power  fits
        manifest's         b = 4  1:2 2:2 3:4 4:4                        8    23,204        23.2B    $116,020    unknown  98.9%    NO
        largest that fits  b = 4  1:1 2:1 3:2 4:1                        3     7,089        7.09B     $35,445    unknown  39.7%   yes

        NO design within max_sessions and max_cost_usd reaches 80% power for δ = 0.1. The largest that
        fits detects a difference of 0.185 or more at that power; raise the ceilings, ask a larger
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

  it('says when the run recorded this very manifest, and gives the forecast as JSON', async () => {
    const smoke = await readFile(path.join(REPO_ROOT, 'manifests/smoke.yaml'), 'utf8');
    const design: SimDesign = { ...DESIGN, repetitions: 1, name: 'smoke' };
    const cells = simCells(design).filter((c) => !(c.cap === 2 && c.arm === 'ungated'));
    const { dir } = await simRun(design, cells, { manifestYaml: smoke });
    const { code, stdout } = await run('plan', path.join(REPO_ROOT, 'manifests/smoke.yaml'), '--from', dir, '--json');
    expect(code).toBe(0);
    const plan = JSON.parse(stdout);
    expect(plan.forecast).toMatchObject({ sameManifest: true, recorded: 3, caps: [{ cap: 2, cells: 1 }], total: { cells: 1 } });
    // The one cell left shares its pair's planning and leaves with the gated cell already recorded: only its merges are to pay.
    const model = learnCostModel(cells, { declaredBranching: 2, mergeAttempts: 2 });
    expect(plan.forecast.total.forecast.sessions).toBeCloseTo(expectedTree(model, 2).assembling * model.merge.ungated.sessionsPerNode, 5);
    // One pair per cap: no spread to learn, so the manifest's SD is used, and the plan says why.
    expect(plan.power).toMatchObject({ source: { kind: 'manifest', named: false }, fallback: expect.stringContaining('no cap with 2 complete pairs') });
  });

  it('refuses a run it cannot learn from, in one line (exit 2)', async () => {
    const missing = await run('plan', path.join(REPO_ROOT, 'manifests/smoke.yaml'), '--from', '/nonexistent/run');
    expect(missing).toMatchObject({ code: 2, stderr: 'harness: /nonexistent/run does not exist; point at a run folder written by harness record (runs/NAME)\n' });
    const cells = simCells(DESIGN);
    const outcomes = Object.fromEntries(cells.map((c) => [cellId(c), { status: 'unmeasured' as const, reason: 'ceiling' as const }]));
    const { dir } = await simRun(DESIGN, cells, { outcomes });
    const nothing = await run('plan', path.join(REPO_ROOT, 'manifests/smoke.yaml'), '--from', dir);
    expect({ code: nothing.code, stderr: nothing.stderr.replaceAll(dir, '<run>') }).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "harness: <run>: no cell was measured yet, so there is nothing to learn a forecast from; record some cells first (e.g. harness record --depths 1,2)
      ",
      }
    `);
  });
});
