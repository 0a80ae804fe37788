import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../../../engine/index.js';
import { REPO_ROOT, loadManifest, runRecord, startSimServer, type CliIo, type FaultPlan, type RecordFlags, type RecordResult, type SimServer } from '../../../harness/index.js';
import { bufferIo, simSeams, type SimRecordOptions } from './record-fixture.js';

/**
 * `harness record` on the paid path: the openai SDK against `harness sim serve` on a real local
 * port, with the record tests' SIMULATED population (record-http.yaml: record-sim.yaml with both
 * pairs `openai-compatible`), host sandboxes and the fake grade of record-fixture.ts. Faults come
 * from the server (its fault plan, or an outage by hand); waits run on the clients' injected clock.
 */

export const HTTP_MANIFEST = path.join(REPO_ROOT, 'tests/harness/record/record-http.yaml');
/** The environment variable the provider files below name; the simulated server checks no key. */
export const KEY_ENV = 'RDH_TEST_SIM_HTTP_KEY';

export async function startServer(faults?: FaultPlan, manifest = HTTP_MANIFEST): Promise<SimServer> {
  process.env[KEY_ENV] ??= 'sk-test-not-a-real-key-0000';
  return startSimServer({ port: 0, manifest: await loadManifest(manifest), ...(faults ? { faults } : {}), log: () => undefined });
}

export interface ProvidersOptions {
  /** Seconds of each provider's patience. Default 600. */
  patienceS?: number;
  /** Where the executor's model is served, when not at `url` (a second, dead endpoint). */
  executorUrl?: string;
  /** Prices per million tokens; null: none (unpriced models). Default input 1, output 2, cached 0.1 (made up: the server is SIMULATED). */
  prices?: { input: number; output: number; cached_input: number } | null;
}

/**
 * A provider configuration for the server at `url`, with no `roles` (the routing must not need
 * them): the SIMULATED ids keep their tag over HTTP, and the call header is on (loopback).
 */
export async function providersFile(dir: string, url: string, o: ProvidersOptions = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const price = o.prices === undefined ? { input: 1, output: 2, cached_input: 0.1 } : o.prices;
  const endpoint = (base: string) => `    base_url: ${base}\n    api_key_env: ${KEY_ENV}\n    patience_s: ${o.patienceS ?? 600}\n`;
  const model = (id: string, provider: string, family: string) =>
    `  ${id}:\n    provider: ${provider}\n    model: "${id} (SIMULATED)"\n    family: ${family}\n${price ? `    price_usd_per_million: { input: ${price.input}, output: ${price.output}, cached_input: ${price.cached_input} }\n` : ''}`;
  const text = [
    'version: 1',
    'providers:',
    `  sim-http:\n${endpoint(url)}`,
    ...(o.executorUrl ? [`  sim-http-executor:\n${endpoint(o.executorUrl)}`] : []),
    'models:',
    model('sim-executor', o.executorUrl ? 'sim-http-executor' : 'sim-http', 'sim-alpha'),
    model('sim-reviewer', 'sim-http', 'sim-beta'),
  ].join('\n');
  const file = path.join(dir, 'providers.yaml');
  await writeFile(file, text);
  return file;
}

/** A copy of the HTTP manifest with some lines changed (its spec path made absolute, so it reads from anywhere). */
export async function manifestVariant(dir: string, name: string, edits: Array<[RegExp | string, string]>): Promise<string> {
  let text = (await readFile(HTTP_MANIFEST, 'utf8')).replace('spec: ../../../spec/sqlcsv', `spec: ${path.join(REPO_ROOT, 'spec/sqlcsv')}`);
  for (const [from, to] of edits) text = text.replace(from, to);
  const file = path.join(dir, `${name}.yaml`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, text);
  return file;
}

export interface HttpRecordOptions extends SimRecordOptions {
  providers: string;
  /** The clients' clock (backoff, Retry-After, patience). Default: the system clock. */
  clock?: Clock;
  /** Default the record-http manifest. */
  manifest?: string;
  /** Skip the one-token warm-up per model. Default false: it is made, as a real sweep makes it. */
  skipWarmup?: boolean;
}

export async function recordHttp(out: string, flags: RecordFlags, o: HttpRecordOptions, io: CliIo = bufferIo()): Promise<RecordResult> {
  const seams = { ...simSeams(o), skipWarmup: o.skipWarmup ?? false, ...(o.clock ? { clientClock: o.clock } : {}) };
  return runRecord(o.manifest ?? HTTP_MANIFEST, { ...flags, out, providers: o.providers }, io, seams);
}
