import { readFile, mkdir, copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EXIT, Manifest, ManifestInvalidError, exitCodeFor, loadManifest, manifestDigest, repetitionsAt, runCli, selectDepths, withMaxSessions } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { RdhError } from '../../../engine/index.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

/** Every key in reverse order, at every level: the same data, written differently. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversedKeys(v)]));
  return value;
}

describe('loadManifest', () => {
  it('applies defaults, sorts caps, orders arms, and keeps paths as written', async () => {
    const minimal = patched(VALID_MANIFEST, { merge_attempts: undefined, unit: undefined, concurrency: undefined, simulated: undefined, arms: ['ungated', 'gated'], depth_caps: [3, 1, 2] });
    const loaded = await loadManifest(await tmp.write('nested/minimal.yaml', yamlOf({ ...minimal, spec: '../spec' })));
    expect(loaded.manifest.depth_caps).toEqual([1, 2, 3]);
    expect(loaded.manifest.arms).toEqual(['gated', 'ungated']);
    expect(loaded.manifest.merge_attempts).toBe(2);
    expect(loaded.manifest.unit).toEqual({ max_turns: 60, token_ceiling: 1_000_000, cost_ceiling_usd: 5 });
    expect(loaded.manifest.concurrency).toBe(4);
    expect(loaded.manifest.pairing).toBe('shared');
    expect(loaded.manifest.simulated).toEqual({
      seed: 1, leaf_defect_rate: 0.2, seam_defect_rate: 0.15, judge_recall: 0.8, self_review_recall: 0.3, repair_rate: 0.6,
      branching: { 2: 0.5, 3: 0.5 }, early_leaf_rate: 0.1, unresolved_claim_rate: 0.05, non_delivery_rate: 0.05,
    });
    expect(loaded.manifest.spec).toBe('../spec');
    // Against the manifest's own folder, never the working directory.
    expect(loaded.specDir).toBe(path.join(tmp.dir, 'spec'));
    expect(loaded.caveats).toEqual([]);
    expect([1, 2, 3].map((cap) => repetitionsAt(loaded.manifest, cap))).toEqual([1, 1, 2]);
  });

  it('carries the same_family caveat every artifact must show', async () => {
    const loaded = await loadManifest(await tmp.write('same.yaml', yamlOf(patched(VALID_MANIFEST, { independence: 'same_family', reviewer: { family: 'family-a' } }))));
    expect(loaded.caveats).toMatchInlineSnapshot(`
      [
        "SAME FAMILY: executor and reviewer are both from family "family-a", so the gated arm's judge is not independent of the work it judges; a judge favours its own family's output, which biases the difference between the arms toward zero.",
      ]
    `);
  });

  it('accepts same_family without declared families, and says so in the caveat', async () => {
    const text = yamlOf(patched(VALID_MANIFEST, { independence: 'same_family', executor: { family: undefined }, reviewer: { family: undefined } }));
    const loaded = await loadManifest(await tmp.write('same-undeclared.yaml', text));
    expect(loaded.caveats[0]).toMatch(/^SAME FAMILY: executor and reviewer are declared to share a family/);
  });

  it('refuses with a ManifestInvalidError: code manifest_invalid, exit 2, one line per problem', async () => {
    const file = await tmp.write('two-problems.yaml', yamlOf(patched(VALID_MANIFEST, { depth_caps: [1, -2], arms: ['gated', 'gated'] })));
    const error = await loadManifest(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ManifestInvalidError);
    expect(error).toBeInstanceOf(RdhError);
    expect((error as ManifestInvalidError).code).toBe('manifest_invalid');
    expect(exitCodeFor(error)).toBe(EXIT.usage);
    expect((error as ManifestInvalidError).problems.map((p) => p.replace(tmp.dir, '<tmp>'))).toMatchInlineSnapshot(`
      [
        "<tmp>/two-problems.yaml:6: depth_caps[1]: must be a positive whole number, got -2; e.g. depth_caps: [1, 2, 3, 4]",
        "<tmp>/two-problems.yaml:13: arms[1]: "gated" appears twice; list each arm once",
      ]
    `);
  });

  it('allows one model id served by two different providers (the pair is provider and model)', async () => {
    const text = yamlOf(patched(VALID_MANIFEST, { executor: { provider: 'sim', model: 'same-id' }, reviewer: { model: 'same-id' } }));
    await expect(loadManifest(await tmp.write('same-id.yaml', text))).resolves.toBeDefined();
  });
});

describe('manifest digest', () => {
  const digestOfValid = () => manifestDigest(Manifest.parse(VALID_MANIFEST));

  it('is stable under key order and YAML formatting', async () => {
    const block = await loadManifest(await tmp.write('block.yaml', yamlOf(VALID_MANIFEST)));
    const reordered = await loadManifest(await tmp.write('reordered.yaml', yamlOf(reversedKeys(VALID_MANIFEST))));
    const flow = await loadManifest(await tmp.write('flow.yaml', `# a comment\n${stringify(reversedKeys(VALID_MANIFEST), { collectionStyle: 'flow' })}`));
    const handWritten = [
      'version:    1',
      "name: 'fixture'",
      'spec: "./spec"',
      'depth_caps: [3, 2, 1]            # order does not matter',
      'repetitions: {default: 1, by_cap: {"3": 2}}',
      'arms:',
      '  - ungated',
      '  - gated',
      'executor: {provider: openai-compatible, model: executor-model, family: family-a, rung: 3}',
      'reviewer: {rung: 3.0, family: family-b, model: reviewer-model, provider: openai-compatible}',
      'independence: cross_family',
      'merge_attempts: 2',
      'unit: {max_turns: 60, token_ceiling: 1000000, cost_ceiling_usd: 5.00}',
      'max_sessions: 1000',
      'projected_branching: 3.0',
      'concurrency: 2',
      'simulated: {seed: 1, leaf_defect_rate: 0.2, seam_defect_rate: 0.15, judge_recall: 0.8, self_review_recall: 0.3, repair_rate: 0.6}',
      '',
    ].join('\n');
    const hand = await loadManifest(await tmp.write('hand.yaml', handWritten));
    expect(new Set([block.digest, reordered.digest, flow.digest, hand.digest, digestOfValid()]).size).toBe(1);
  });

  it('counts a default written out and a default left out as the same manifest', () => {
    const omitted = patched(VALID_MANIFEST, { merge_attempts: undefined, unit: { max_turns: undefined } });
    expect(manifestDigest(Manifest.parse(omitted))).toBe(digestOfValid());
  });

  it('does not depend on where the checkout lives (paths are digested as written)', async () => {
    const elsewhere = path.join(tmp.dir, 'checkout');
    await mkdir(path.join(elsewhere, 'manifests'), { recursive: true });
    await mkdir(path.join(elsewhere, 'spec', 'sqlcsv'), { recursive: true });
    for (const name of ['SPEC.md', 'requirements.yaml']) await copyFile(path.join('spec/sqlcsv', name), path.join(elsewhere, 'spec', 'sqlcsv', name));
    await copyFile('manifests/smoke.yaml', path.join(elsewhere, 'manifests', 'smoke.yaml'));
    const here = await loadManifest('manifests/smoke.yaml');
    const there = await loadManifest(path.join(elsewhere, 'manifests', 'smoke.yaml'));
    expect(there.specDir).not.toBe(here.specDir);
    expect(there.digest).toBe(here.digest);
  });

  /** One semantic edit per field: every one must change the digest. */
  const EDITS: Array<[string, Record<string, unknown>]> = [
    ['name', { name: 'fixture-2' }],
    ['spec', { spec: './spec/../spec' }],
    ['depth_caps', { depth_caps: [1, 2, 3, 4] }],
    ['repetitions.default', { repetitions: { default: 2 } }],
    ['repetitions.by_cap', { repetitions: { by_cap: { 3: 3 } } }],
    ['arms', { arms: ['gated'] }],
    ['executor.provider', { executor: { provider: 'sim' } }],
    ['executor.model', { executor: { model: 'other-model' } }],
    ['executor.family', { executor: { family: 'family-c' } }],
    ['executor.rung', { executor: { rung: 2 } }],
    ['reviewer.provider', { reviewer: { provider: 'sim' } }],
    ['reviewer.model', { reviewer: { model: 'other-model' } }],
    ['reviewer.family', { reviewer: { family: 'family-c' } }],
    ['reviewer.rung', { reviewer: { rung: 4 } }],
    ['independence', { independence: 'same_family', reviewer: { family: 'family-a' } }],
    ['merge_attempts', { merge_attempts: 3 }],
    ['unit.max_turns', { unit: { max_turns: 61 } }],
    ['unit.token_ceiling', { unit: { token_ceiling: 999_999 } }],
    ['unit.cost_ceiling_usd', { unit: { cost_ceiling_usd: 5.01 } }],
    ['max_sessions', { max_sessions: 999 }],
    ['projected_branching', { projected_branching: 3.1 }],
    ['concurrency', { concurrency: 3 }],
    ['simulated.seed', { simulated: { seed: 2 } }],
    ['simulated.leaf_defect_rate', { simulated: { leaf_defect_rate: 0.21 } }],
    ['simulated.seam_defect_rate', { simulated: { seam_defect_rate: 0.16 } }],
    ['simulated.judge_recall', { simulated: { judge_recall: 0.81 } }],
    ['simulated.self_review_recall', { simulated: { self_review_recall: 0.31 } }],
    ['simulated.repair_rate', { simulated: { repair_rate: 0.61 } }],
    ['pairing', { pairing: 'independent' }],
    ['simulated.branching.2', { simulated: { branching: { 2: 0.4, 3: 0.6 } } }],
    ['simulated.branching.3', { simulated: { branching: { 2: 0.5, 4: 0.5 } } }],
    ['simulated.early_leaf_rate', { simulated: { early_leaf_rate: 0.11 } }],
    ['simulated.unresolved_claim_rate', { simulated: { unresolved_claim_rate: 0.06 } }],
    ['simulated.non_delivery_rate', { simulated: { non_delivery_rate: 0.06 } }],
  ];

  it.each(EDITS)('changes when %s changes', (_field, edit) => {
    expect(manifestDigest(Manifest.parse(patched(VALID_MANIFEST, edit)))).not.toBe(digestOfValid());
  });

  it('covers every field of the schema with an edit', () => {
    const leaves = (value: unknown, prefix = ''): string[] =>
      value && typeof value === 'object' && !Array.isArray(value) && !prefix.endsWith('by_cap')
        ? Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k))
        : [prefix];
    const edited = new Set(EDITS.map(([field]) => field));
    expect(leaves(Manifest.parse(VALID_MANIFEST)).filter((field) => field !== 'version' && !edited.has(field))).toEqual([]);
  });

  it('is not changed by --max-sessions, which folds into the loaded object and never the file', async () => {
    const file = await tmp.write('fold.yaml', yamlOf(VALID_MANIFEST));
    const before = await readFile(file, 'utf8');
    const loaded = await loadManifest(file);
    const lowered = withMaxSessions(loaded, 10);
    expect(lowered.manifest.max_sessions).toBe(10);
    expect(lowered.folded).toEqual({ max_sessions: { manifest: 1000, flag: 10 } });
    expect(lowered.digest).toBe(loaded.digest);
    expect(loaded.manifest.max_sessions).toBe(1000); // the original object is not mutated either
    expect(await readFile(file, 'utf8')).toBe(before);
    // Through the CLI as well: the digest the plan prints does not move.
    const digests = await Promise.all(
      [[], ['--max-sessions', '10']].map(async (extra) => {
        const io = bufferIo();
        expect(await runCli(['plan', file, '--json', ...extra], io)).toBe(0);
        return JSON.parse(io.stdout()).manifest.digest as string;
      }),
    );
    expect(digests).toEqual([loaded.digest, loaded.digest]);
  });
});

describe('staging', () => {
  it('lowers max_sessions, allows the same value, refuses a higher one, and measures lowering from the file', async () => {
    const loaded = await loadManifest(await tmp.write('staging.yaml', yamlOf(VALID_MANIFEST)));
    expect(withMaxSessions(loaded, 1000).manifest.max_sessions).toBe(1000);
    const lowered = withMaxSessions(loaded, 100);
    // Raising a lowered ceiling back up to the file's value is still a lowering of the file.
    expect(withMaxSessions(lowered, 500).folded.max_sessions).toEqual({ manifest: 1000, flag: 500 });
    expect(() => withMaxSessions(loaded, 1001)).toThrow(/--max-sessions 1001 is above max_sessions 1000 in .*; the flag can only lower the ceiling/);
  });

  it('selects caps the manifest declares, ascending, and names the available ones otherwise', async () => {
    const loaded = await loadManifest(await tmp.write('depths.yaml', yamlOf(VALID_MANIFEST)));
    expect(selectDepths(loaded, [3, 1])).toEqual([1, 3]);
    expect(() => selectDepths(loaded, [4, 5])).toThrow(/--depths: caps 4, 5 are not in .*depths\.yaml; its caps are 1, 2, 3$/);
  });
});
