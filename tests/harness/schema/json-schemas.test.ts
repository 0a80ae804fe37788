import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonSchemaFiles } from '../../../harness/index.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SCHEMA_DIR = path.join(ROOT, 'harness', 'schema');

describe('committed JSON Schemas', () => {
  it.each(Object.keys(jsonSchemaFiles()))('%s matches the zod schema it is generated from', async (name) => {
    const committed = await readFile(path.join(SCHEMA_DIR, name), 'utf8').catch(() => '(missing)');
    // On failure: the zod schema changed; run `npx tsx harness/schema/write.ts` and commit the result.
    expect(committed, `harness/schema/${name} is stale: run npx tsx harness/schema/write.ts`).toBe(jsonSchemaFiles()[name]);
  });

  it.each([
    ['manifests/smoke.yaml', 'manifest.schema.json'],
    ['manifests/recursion-depth.yaml', 'manifest.schema.json'],
    ['manifests/providers.example.yaml', 'providers.schema.json'],
    ['manifests/providers.sim-http.yaml', 'providers.schema.json'],
    ['manifests/smoke-http.yaml', 'manifest.schema.json'],
    ['manifests/faults.example.yaml', 'faults.schema.json'],
  ])('%s points editors at %s', async (file, schema) => {
    const text = await readFile(path.join(ROOT, file), 'utf8');
    const match = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text);
    expect(match?.[1]).toBeDefined();
    expect(path.resolve(path.dirname(path.join(ROOT, file)), match![1]!)).toBe(path.join(SCHEMA_DIR, schema));
  });

  it('describes every manifest field, and says which have defaults', async () => {
    const schema = JSON.parse(jsonSchemaFiles()['manifest.schema.json']!);
    const undocumented: string[] = [];
    const walk = (node: Record<string, unknown>, at: string) => {
      for (const [key, child] of Object.entries((node.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof child.description !== 'string' || !/default/i.test(child.description)) undocumented.push(`${at}${key}`);
        walk(child, `${at}${key}.`);
      }
    };
    walk(schema, '');
    expect(undocumented).toEqual([]);
    expect(schema.additionalProperties).toBe(false);
    // The shipped manifests are data the schema accepts (a YAML round trip, no harness code involved).
    expect(Object.keys(parse(await readFile(path.join(ROOT, 'manifests/smoke.yaml'), 'utf8'))).every((key) => key in schema.properties)).toBe(true);
  });
});
