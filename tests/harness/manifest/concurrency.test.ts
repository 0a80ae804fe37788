import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManifestInvalidError, concurrencyPlan, concurrencyText, fixedSessions, loadManifest, parseConcurrencyFlag } from '../../../harness/index.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

async function concurrencyOf(value: unknown) {
  const loaded = await loadManifest(await tmp.write(`c-${JSON.stringify(value).replace(/\W/g, '')}.yaml`, yamlOf(patched(VALID_MANIFEST, { concurrency: value }))));
  return loaded.manifest.concurrency;
}

async function problemsOf(value: unknown): Promise<string[]> {
  const error = await concurrencyOf(value).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ManifestInvalidError);
  return (error as ManifestInvalidError).problems.map((p) => p.replace(/^.*?\.yaml:\d+: /, ''));
}

describe('concurrency: a fixed number, or bounds for the adaptive controller', () => {
  it('keeps a whole number fixed, exactly as before (the digest of existing manifests is unchanged)', async () => {
    const value = await concurrencyOf(8);
    expect(value).toBe(8);
    expect(concurrencyPlan(value)).toEqual({ kind: 'fixed', sessions: 8 });
    expect(concurrencyText(value)).toBe('8');
    expect(fixedSessions(value)).toBe(8);
  });

  it('reads "MIN-START-MAX" and {min, start, max} as the same bounds', async () => {
    const fromText = await concurrencyOf('4-20-100');
    const fromObject = await concurrencyOf({ min: 4, start: 20, max: 100 });
    expect(fromText).toEqual({ min: 4, start: 20, max: 100 });
    expect(fromObject).toEqual(fromText);
    expect(concurrencyPlan(fromText)).toEqual({ kind: 'adaptive', min: 4, start: 20, max: 100 });
    expect(concurrencyText(fromObject)).toBe('4-20-100');
    // Where nothing adapts (replay), bounds run at their start.
    expect(fixedSessions(fromText)).toBe(20);
  });

  it('refuses bounds out of order, naming the field and the fix', async () => {
    expect(await problemsOf({ min: 8, start: 4, max: 100 })).toMatchInlineSnapshot(`
      [
        "concurrency.start: is below min (8); start within [min, max]",
      ]
    `);
    expect(await problemsOf('4-200-100')).toMatchInlineSnapshot(`
      [
        "concurrency: max is below start (200); max must be at least start",
      ]
    `);
    expect([...(await problemsOf('4-20')), ...(await problemsOf(0)), ...(await problemsOf({ min: 1, start: 2 }))]).toMatchInlineSnapshot(`
      [
        "concurrency: "4-20" is not MIN-START-MAX (three whole numbers, e.g. "4-20-100"), nor a whole number; e.g. concurrency: 4",
        "concurrency: must be a positive whole number, got 0; e.g. concurrency: 4",
        "concurrency.max: missing; add it, e.g. concurrency: 4",
      ]
    `);
  });

  it('parses --concurrency the same way, with one line naming what was given', () => {
    expect(parseConcurrencyFlag('6')).toBe(6);
    expect(parseConcurrencyFlag(' 2-8-32 ')).toEqual({ min: 2, start: 8, max: 32 });
    expect(() => parseConcurrencyFlag('fast')).toThrowErrorMatchingInlineSnapshot(`[RangeError: expected a whole number of at least 1 (fixed) or MIN-START-MAX bounds such as 4-20-100, got "fast" (is not MIN-START-MAX (three whole numbers, e.g. "4-20-100"), nor a whole number).]`);
    expect(() => parseConcurrencyFlag('0')).toThrow(/got "0"/);
    expect(() => parseConcurrencyFlag('9-4-100')).toThrow(/start/);
  });
});
