import { z } from 'zod';
import { EXIT } from '../exit-codes.js';

/**
 * What `harness models` found, as `--json` prints it and the table renders it. This schema is
 * the only definition of the record. A capability is `yes` only when the probe saw it work; a
 * probe that failed is `error` with its reason (redacted), never a guess.
 */

const Reason = z.string().max(500).describe('Why, in one line, with any key redacted.');

export const ProbeResult = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('yes'), detail: Reason.optional() }),
  /** The provider answered, and the answer shows the capability is absent (or refused with a 400/404/422). */
  z.strictObject({ status: z.literal('no'), reason: Reason }),
  /** The probe could not tell: the call failed (connection, deadline, 5xx, a second 429, a refused key). */
  z.strictObject({ status: z.literal('error'), reason: Reason }),
  /** Not tried, e.g. the id is not served. */
  z.strictObject({ status: z.literal('skipped'), reason: Reason }),
]);
export type ProbeResult = z.infer<typeof ProbeResult>;

export const CacheFigures = z.strictObject({
  prompt_tokens: z.int().nonnegative().describe('Prompt tokens of the second call, as its usage says.'),
  cached_tokens: z.int().nonnegative().nullable().describe('usage.prompt_tokens_details.cached_tokens of the second call; null when the field is absent.'),
  share: z.number().min(0).max(1).nullable().describe('cached_tokens / prompt_tokens; null when either is absent or prompt_tokens is 0.'),
});
export type CacheFigures = z.infer<typeof CacheFigures>;

export const ModelProbe = z.strictObject({
  key: z.string().describe('The id the configuration lists the model under (models.KEY).'),
  id: z.string().describe('The id sent to the endpoint (entry.model, else the key).'),
  family: z.string().nullable().describe('The declared family, as written; null when not declared. Never changed by the probe.'),
  family_flag: z.string().nullable().describe("Why the id's vendor prefix disagrees with the declared family; null when it does not."),
  listed: z.boolean().nullable().describe('Whether GET /models lists the id; null when the list could not be read.'),
  latency_ms: z.number().nonnegative().nullable().describe('Wall time of the one-token call, in ms; null when it did not answer.'),
  answer: ProbeResult.describe('The one-token call.'),
  tools: ProbeResult.describe('A tiny tool call: yes when a tool call came back.'),
  json: ProbeResult.describe('response_format json_object: yes when accepted and the reply parses as a JSON object.'),
  caching: ProbeResult.describe('The same ~2,000-token prefix sent twice: yes when the second reports cached_tokens above 0.'),
  cache: CacheFigures.nullable(),
  rate_limit_headers: z.record(z.string(), z.string()).describe('x-ratelimit-* and anthropic-ratelimit-* headers of the last reply that carried any (names lower-cased).'),
});
export type ModelProbe = z.infer<typeof ModelProbe>;

export const ProviderProbe = z.strictObject({
  name: z.string(),
  base_url: z.string(),
  list: ProbeResult.describe('GET /models: yes with the count, or why it failed.'),
  list_http_status: z.int().nullable().describe('HTTP status of GET /models; null when no answer came.'),
  listed_count: z.int().nonnegative().nullable(),
  reachable: z.boolean().describe('False when GET /models got no answer (refused connection, deadline): its models were not probed.'),
  unprobed: z.int().nonnegative().describe('Configured models not probed because the provider was unreachable.'),
  models: z.array(ModelProbe),
});
export type ProviderProbe = z.infer<typeof ProviderProbe>;

export const ModelsReport = z.strictObject({
  version: z.literal(1).describe('Format version of this record.'),
  providers: z.array(ProviderProbe),
  exit: z.int().describe('The exit code the command ends with (see modelsExit).'),
});
export type ModelsReport = z.infer<typeof ModelsReport>;

/**
 * The exit of `harness models`: 6 (provider configuration) when a configured id is not listed
 * or the key was refused, since the configuration needs fixing first; else 3 (environment) when
 * a provider was unreachable or any probe errored; else 0, every id listed and every probe
 * answered (a capability the provider answered "no" to is an answer).
 */
export function modelsExit(providers: readonly ProviderProbe[]): number {
  const models = providers.flatMap((p) => p.models);
  const refusedKey = providers.some((p) => p.list_http_status === 401 || p.list_http_status === 403);
  if (refusedKey || models.some((m) => m.listed === false)) return EXIT.providerConfiguration;
  const errored = (r: ProbeResult) => r.status === 'error' || r.status === 'skipped';
  if (providers.some((p) => !p.reachable || p.list.status === 'error') || models.some((m) => [m.answer, m.tools, m.json, m.caching].some(errored))) return EXIT.environment;
  return EXIT.ok;
}
