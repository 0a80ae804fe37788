import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { pairedTestPower } from '../../../harness/index.js';
import { scratch, yamlOf } from '../manifest/manifest-fixtures.js';

/**
 * `harness plan` designs the sweep: the shipped recursion-depth manifest (its hypothesis and
 * sequential block uncommented) gets the design search beside its own design, and --json
 * carries it. Within reach, the design found is the cheapest that reaches the power: one pair
 * fewer does not.
 */

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
let shipped: Record<string, unknown>;
beforeAll(async () => {
  tmp = await scratch();
  shipped = parse(await readFile('manifests/recursion-depth.yaml', 'utf8')) as Record<string, unknown>;
});
afterAll(() => tmp.cleanup());

async function plan(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(['plan', ...argv], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** The shipped manifest with `over` applied, written beside the scratch spec. */
const variant = (name: string, over: Record<string, unknown>) => tmp.write(name, yamlOf({ ...shipped, spec: './spec', ...over }));

describe('harness plan: the design search', () => {
  it('prints, for the shipped manifest, that no design within max_sessions reaches the power, the reachable difference and its lines, and exits 0', async () => {
    const { code, out, err } = await plan('manifests/recursion-depth.yaml');
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const section = out.slice(out.indexOf('Design search:'));
    const lines = section.split('\n').map((l) => l.trim());
    expect(lines.filter((l) => /^(manifest's|largest that fits) /.test(l))).toEqual([
      "manifest's         b = 4  1:2 2:2 3:4 4:4                        8    23,204        23.2B    $116,020    unknown  16.5%    NO",
      'largest that fits  b = 4  1:1 2:1 3:2 4:1                        3     7,089        7.09B     $35,445    unknown   7.2%   yes',
    ]);
    expect(section).toContain('NO design within max_sessions and max_cost_usd reaches 80% power for δ = 0.1.');
    expect(section.replace(/\s+/g, ' ')).toContain('The largest that fits detects a difference of 0.816 or more at that power');
    const json = JSON.parse((await plan('manifests/recursion-depth.yaml', '--json')).out);
    const { assumptions: _a, ...design } = json.design;
    expect({ manifest: [design.manifest.primaryPairs, design.manifest.sessions, design.manifest.fits], cheapest: design.cheapest ?? null, reachable: [design.reachable.design.repetitions, design.reachable.design.sessions, Number(design.reachable.smallestDifference.toFixed(3))], yaml: design.yaml, pairs: [design.fixedPairsNeeded, design.pairsPlanned] }).toEqual({
      manifest: [8, 23204, false],
      cheapest: null,
      reachable: [{"1": 1, "2": 1, "3": 2, "4": 1}, 7089, 0.816],
      yaml: ["repetitions:", "  default: 1", "  by_cap:", "    3: 2"],
      pairs: [52, 53],
    });
  });

  it('finds, within reach, the cheapest fixed design: it reaches the power and one primary pair fewer does not', async () => {
    const { sequential: _none, ...fixed } = shipped.hypothesis as Record<string, unknown>;
    const file = await variant('reach.yaml', { max_sessions: 20000, max_children: 4, hypothesis: fixed });
    const { design } = JSON.parse((await plan(file, '--json')).out);
    expect({ pairs: design.cheapest.primaryPairs, width: design.cheapest.width, repetitions: design.cheapest.repetitions, sessions: design.cheapest.sessions, fits: design.cheapest.fits, yaml: design.yaml }).toMatchInlineSnapshot(`
      {
        "fits": true,
        "pairs": 52,
        "repetitions": {
          "1": 2,
          "2": 2,
          "3": 50,
          "4": 2,
        },
        "sessions": 15192,
        "width": 2,
        "yaml": [
          "repetitions:",
          "  default: 2",
          "  by_cap:",
          "    3: 50",
          "max_children: 2",
        ],
      }
    `);
    expect(design.cheapest.power).toBeGreaterThanOrEqual(0.8);
    expect(design.cheapest.sessions).toBeLessThanOrEqual(20000);
    expect(pairedTestPower({ pairs: design.cheapest.primaryPairs - 1, sd: 0.25, difference: 0.1, alpha: 0.05 })).toBeLessThan(0.8);
    // The manifest's own design is beside it, with its own bill and power.
    expect({ pairs: design.manifest.primaryPairs, sessions: design.manifest.sessions, fits: design.manifest.fits }).toEqual({ pairs: 8, sessions: 23640, fits: false });
  });

  it('prints a sequential design\'s expected pairs and sessions at a planted difference of 0 and of δ, beside the fixed design\'s', async () => {
    const file = await variant('seq.yaml', { max_sessions: 20000, max_children: 4 });
    const { out } = await plan(file);
    expect(out.split('\n').filter((l) => /Sequential \(|planted difference|the fixed design:/.test(l))).toMatchInlineSnapshot(`
      [
        "  Sequential (2 looks, obrien_fleming; inflation factor 1.004), expected at most 53 primary pairs:",
        "    planted difference 0: 52.9 pairs, 15,444 sessions expected (stops early only by futility or a false positive)",
        "    planted difference δ = 0.1: 48.4 pairs, 14,209 sessions expected, power 81.4%",
        "    the fixed design: 52.0 pairs, 15,192 sessions, always",
      ]
    `);
  });
});
