import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Manifest, comparePins, manifestDigest, runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { samplePins } from '../journal/sweep-fixtures.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest-fixtures.js';

/** `max_children`: the manifest's bound on a planning node's width (docs/branching.md). */

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

let counter = 0;
async function plan(patch: Record<string, unknown>): Promise<{ code: number; line: string; written: string[] }> {
  const file = await tmp.write(`m${counter++}.yaml`, yamlOf(patched(VALID_MANIFEST, patch)));
  const before = await tmp.listing();
  const io = bufferIo();
  const code = await runCli(['plan', file], io);
  const after = await tmp.listing();
  const stderr = io.stderr().replaceAll(tmp.dir, '<tmp>').replace(/<tmp>\/m\d+\.yaml/g, '<file>');
  return { code, line: `exit ${code}: ${stderr.trimEnd()}`, written: after.filter((f) => !before.includes(f)) };
}

describe('max_children in the manifest', () => {
  it('refuses a bound below 2, a fraction or a word: one line naming the field and the fix, exit 2, nothing written', async () => {
    const results = [await plan({ max_children: 1 }), await plan({ max_children: 0 }), await plan({ max_children: 2.5 }), await plan({ max_children: 'two' }), await plan({ max_children: 65 })];
    for (const r of results) {
      expect(r.code).toBe(2);
      expect(r.line.split('\n')).toHaveLength(1);
      expect(r.written).toEqual([]);
    }
    expect(results.map((r) => r.line)).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <file>:41: max_children: must be at least 2 (a split into fewer pieces is no split); leave the field out for no bound, got 1; e.g. max_children: 2",
        "exit 2: harness: <file>:41: max_children: must be at least 2 (a split into fewer pieces is no split); leave the field out for no bound, got 0; e.g. max_children: 2",
        "exit 2: harness: <file>:41: max_children: must be a whole number, got 2.5; e.g. max_children: 2",
        "exit 2: harness: <file>:41: max_children: expected a whole number, got "two"; e.g. max_children: 2",
        "exit 2: harness: <file>:41: max_children: must be at most 64 (a bound that wide bounds no bill); leave the field out for no bound, got 65; e.g. max_children: 2",
      ]
    `);
  });

  it('accepts 2 and up, and leaving it out means no bound', async () => {
    expect((await plan({ max_children: 2 })).code).toBe(0);
    expect(Manifest.parse(VALID_MANIFEST).max_children).toBeUndefined();
    expect(Manifest.parse({ ...VALID_MANIFEST, max_children: 3 }).max_children).toBe(3);
  });

  it('enters the digest: two bounds are two sweeps, and no bound keeps the digest it had before the field existed', () => {
    const digest = (patch: Record<string, unknown>) => manifestDigest(Manifest.parse(patched(VALID_MANIFEST, patch)));
    expect(new Set([digest({}), digest({ max_children: 2 }), digest({ max_children: 3 })]).size).toBe(3);
    expect(digest({})).toBe(manifestDigest(Manifest.parse(VALID_MANIFEST)));
  });

  it('a journal recorded under one bound is not resumed under another, nor without one', () => {
    const refusal = (stored: number | undefined, current: number | undefined) => {
      const result = comparePins({ ...samplePins(), ...(stored ? { maxChildren: stored } : {}) }, { ...samplePins(), ...(current ? { maxChildren: current } : {}) });
      return result.ok ? 'accepted' : `${result.field}: ${result.message}`;
    };
    expect([refusal(2, 3), refusal(2, undefined), refusal(undefined, 2), refusal(2, 2)]).toMatchInlineSnapshot(`
      [
        "maxChildren: the branching bound changed since this journal began (max_children 2 → 3): a tree built under one bound is not the tree of another; record into a new --out, or restore max_children: 2 in the manifest",
        "maxChildren: the branching bound changed since this journal began (max_children 2 → unset): a tree built under one bound is not the tree of another; record into a new --out, or restore max_children: 2 in the manifest",
        "maxChildren: the branching bound changed since this journal began (max_children unset → 2): a tree built under one bound is not the tree of another; record into a new --out, or remove max_children from the manifest",
        "accepted",
      ]
    `);
  });
});
