import { z } from 'zod';
import { Manifest } from '../manifest/manifest.js';
import { ProviderConfig } from '../providers/provider-config.js';

/**
 * The JSON Schemas editors use to validate and complete the YAML files, generated from the
 * zod schemas (the only definition of each format) and committed beside this file, so a
 * `# yaml-language-server: $schema=...` comment works from a plain checkout. A test fails
 * when a committed file is stale; regenerate with `npx tsx harness/schema/write.ts`.
 */

/** Schema file names (in harness/schema/) and the zod schema each is generated from. */
export const JSON_SCHEMA_SOURCES = {
  'manifest.schema.json': Manifest,
  'providers.schema.json': ProviderConfig,
} as const;

/**
 * The text of one schema file. `input` mode describes what a person writes (fields with
 * defaults are optional), and draft-07 is what yaml-language-server reads most completely.
 */
export function jsonSchemaText(schema: z.ZodType): string {
  return `${JSON.stringify(z.toJSONSchema(schema, { io: 'input', target: 'draft-7' }), null, 2)}\n`;
}

/** Every schema file, by name, as it should be committed. */
export function jsonSchemaFiles(): Record<string, string> {
  return Object.fromEntries(Object.entries(JSON_SCHEMA_SOURCES).map(([name, schema]) => [name, jsonSchemaText(schema)]));
}
