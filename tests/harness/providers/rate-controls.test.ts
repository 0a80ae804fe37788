import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadProviderConfig, providerClients } from '../../../harness/index.js';
import { scratch, yamlOf } from '../manifest/manifest-fixtures.js';

/** One rate controller per (base URL, key), shared by every provider entry that resolves to it. */

let tmp: Awaited<ReturnType<typeof scratch>>;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

const ENV = { A_KEY: 'key-a-0000', SAME_AS_A: 'key-a-0000', B_KEY: 'key-b-0000' };

async function config(providers: Record<string, { base_url: string; api_key_env: string }>) {
  const models = Object.fromEntries(Object.keys(providers).map((p, i) => [`${p}-model`, { provider: p, family: `vendor-${i}` }]));
  return loadProviderConfig(await tmp.write(`providers-${Object.keys(providers).join('-')}.yaml`, yamlOf({ version: 1, providers, models })));
}

describe('rate controllers per provider key', () => {
  it('entries naming one gateway with one key share a controller; another key, or another gateway, gets its own', async () => {
    const loaded = await config({
      exec: { base_url: 'https://gw.example.com/v1', api_key_env: 'A_KEY' },
      judge: { base_url: 'https://gw.example.com/v1/', api_key_env: 'SAME_AS_A' },
      other: { base_url: 'https://gw.example.com/v1', api_key_env: 'B_KEY' },
      elsewhere: { base_url: 'https://api.example.org/v1', api_key_env: 'A_KEY' },
    });
    const { clients, rateControls } = providerClients(loaded, ENV, { bounds: { min: 2, start: 8, max: 32 } });
    expect(Object.keys(clients).sort()).toEqual(['elsewhere', 'exec', 'judge', 'other']);
    expect(rateControls.map((c) => c.status().provider)).toEqual(['exec+judge', 'other', 'elsewhere']);
    expect(rateControls.map((c) => c.status())).toEqual(rateControls.map(() => expect.objectContaining({ limit: 8, min: 2, max: 32, pacing: 'aimd' })));
    // The key is compared, never shown.
    expect(JSON.stringify(rateControls.map((c) => c.status()))).not.toContain('key-a');
  });

  it('builds none without bounds (a fixed concurrency leaves calls unpaced, as before)', async () => {
    const loaded = await config({ solo: { base_url: 'https://gw.example.com/v1', api_key_env: 'A_KEY' } });
    expect(providerClients(loaded, ENV).rateControls).toEqual([]);
  });
});
