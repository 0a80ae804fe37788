import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestInvalidError, loadManifest } from '../../../harness/index.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest-fixtures.js';

/** The manifest's `hypothesis:` block: what it accepts, and a one-line refusal naming the field and the fix for each bad input. */

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

const GOOD = { primary: { level: 2 }, smallest_difference: 0.1, alpha: 0.05, power: 0.8 };

async function problems(hypothesis: unknown, over: Record<string, unknown> = {}): Promise<string[]> {
  const file = await tmp.write(`h-${Math.random().toString(36).slice(2)}.yaml`, yamlOf(patched({ ...VALID_MANIFEST, hypothesis }, over)));
  const error = await loadManifest(file).catch((e: unknown) => e);
  if (!(error instanceof ManifestInvalidError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return error.problems.map((p) => p.replace(/^.*\.yaml:\d+: /, ''));
}

describe('manifest hypothesis', () => {
  it('accepts a primary comparison with secondaries, and defaults secondary to none', async () => {
    const loaded = await loadManifest(await tmp.write('good.yaml', yamlOf({ ...VALID_MANIFEST, hypothesis: { ...GOOD, secondary: [{ level: 1 }, { levels_from: 1 }] } })));
    expect(loaded.manifest.hypothesis).toEqual({ ...GOOD, secondary: [{ level: 1 }, { levels_from: 1 }] });
    const bare = await loadManifest(await tmp.write('bare.yaml', yamlOf({ ...VALID_MANIFEST, hypothesis: GOOD })));
    expect(bare.manifest.hypothesis?.secondary).toEqual([]);
    const none = await loadManifest(await tmp.write('none.yaml', yamlOf(VALID_MANIFEST)));
    expect(none.manifest.hypothesis).toBeUndefined();
  });

  it('refuses level 0 (identical in both arms by design), in a primary or a pooled comparison', async () => {
    expect(await problems({ ...GOOD, primary: { level: 0 }, secondary: [{ levels_from: 0 }] })).toMatchInlineSnapshot(`
      [
        "hypothesis.primary.level: must be at least 1 (level 0 has no merge, so both arms are identical there by design), got 0; e.g. level: 2",
        "hypothesis.secondary[0].levels_from: must be at least 1 (level 0 has no merge, so both arms are identical there by design), got 0; e.g. levels_from: 1",
      ]
    `);
  });

  it('refuses a comparison naming neither or both of level and levels_from, and repeated comparisons', async () => {
    expect(await problems({ ...GOOD, primary: {}, secondary: [{ level: 1, levels_from: 1 }] })).toMatchInlineSnapshot(`
      [
        "hypothesis.primary: names no comparison; write level: N (gated − ungated at level N) or levels_from: K (pooled over levels >= K)",
        "hypothesis.secondary[0].levels_from: names two comparisons (level and levels_from); keep one, and list the other under secondary",
      ]
    `);
    expect(await problems({ ...GOOD, secondary: [{ level: 2 }, { level: 1 }, { level: 1 }] })).toMatchInlineSnapshot(`
      [
        "hypothesis.secondary[0]: level 2 is already the primary comparison; remove it from secondary",
        "hypothesis.secondary[2]: level 1 appears twice; list each comparison once",
      ]
    `);
  });

  it('refuses a comparison no declared cap reaches, and a hypothesis over one arm', async () => {
    expect(await problems({ ...GOOD, primary: { levels_from: 4 } })).toMatchInlineSnapshot(`
      [
        "hypothesis.primary.levels_from: 4 is deeper than the deepest cap (3), so no leaf can sit there; compare a level up to 3, or add a deeper cap to depth_caps",
      ]
    `);
    expect(await problems(GOOD, { arms: ['gated'] })).toMatchInlineSnapshot(`
      [
        "hypothesis: compares gated with ungated, but arms records only gated; record both arms or remove the hypothesis",
      ]
    `);
  });

  it('refuses a missing or out-of-range δ, alpha or power, and power not above alpha', async () => {
    expect(await problems({ primary: { level: 1 } })).toMatchInlineSnapshot(`
      [
        "hypothesis.smallest_difference: missing; add it, e.g. smallest_difference: 0.1",
        "hypothesis.alpha: missing; add it, e.g. alpha: 0.05",
        "hypothesis.power: missing; add it, e.g. power: 0.8",
      ]
    `);
    expect(await problems({ ...GOOD, smallest_difference: 1.5, alpha: 0.6, power: 1 })).toMatchInlineSnapshot(`
      [
        "hypothesis.smallest_difference: must be at most 1, got 1.5; e.g. smallest_difference: 0.1",
        "hypothesis.alpha: must be at most 0.5, got 0.6; e.g. alpha: 0.05",
        "hypothesis.power: must be less than 1, got 1; e.g. power: 0.8",
      ]
    `);
    expect(await problems({ ...GOOD, alpha: 0.1, power: 0.05 })).toMatchInlineSnapshot(`
      [
        "hypothesis.power: 0.05 is not above alpha (0.1); a test has power alpha at no difference at all, so ask for more, e.g. power: 0.8",
      ]
    `);
    expect(await problems({ ...GOOD, primary: { depth: 2 } })).toMatchInlineSnapshot(`
      [
        "hypothesis.primary.depth: unknown field; remove it (fields here: level, levels_from)",
        "hypothesis.primary: names no comparison; write level: N (gated − ungated at level N) or levels_from: K (pooled over levels >= K)",
      ]
    `);
  });

  it('accepts a sequential design and refuses looks below 1, an unknown spending function and a futility other than true, one line each', async () => {
    const seq = await loadManifest(await tmp.write('seq.yaml', yamlOf({ ...VALID_MANIFEST, hypothesis: { ...GOOD, sequential: { looks: 3, spending: 'pocock', futility: true } } })));
    expect(seq.manifest.hypothesis?.sequential).toEqual({ looks: 3, spending: 'pocock', futility: true });
    expect(await problems({ ...GOOD, sequential: { looks: 0, spending: 'haybittle', futility: false } })).toMatchInlineSnapshot(`
      [
        "hypothesis.sequential.looks: must be at least 1 (1 is the fixed design: one look, at the end), got 0; e.g. looks: 2",
        "hypothesis.sequential.spending: expected one of obrien_fleming, pocock, got "haybittle"; e.g. spending: obrien_fleming",
        "hypothesis.sequential.futility: expected true, got false; e.g. futility: true",
      ]
    `);
    expect(await problems({ ...GOOD, sequential: { spending: 'obrien_fleming' } })).toMatchInlineSnapshot(`
      [
        "hypothesis.sequential.looks: missing; add it, e.g. looks: 2",
      ]
    `);
  });
});
