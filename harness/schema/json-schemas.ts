import { z } from 'zod';
import { Manifest } from '../manifest/manifest.js';
import { ProviderConfig } from '../providers/provider-config.js';
import { Report } from '../report/report-schema.js';
import { FaultPlan } from '../sim/serve/fault-plan.js';

/**
 * The JSON Schemas editors use to validate and complete the YAML files, generated from the
 * zod schemas (the only definition of each format) and committed beside this file, so a
 * `# yaml-language-server: $schema=...` comment works from a plain checkout. A test fails
 * when a committed file is stale; regenerate with `npx tsx harness/schema/write.ts`.
 */

/**
 * Schema file names (in harness/schema/), the zod schema each is generated from, and which side
 * it describes: `input` for files people write (fields with defaults are optional), `output`
 * for files the harness writes (report.json: every field as written).
 */
export const JSON_SCHEMA_SOURCES = {
  'manifest.schema.json': { schema: Manifest, io: 'input' },
  'providers.schema.json': { schema: ProviderConfig, io: 'input' },
  'report.schema.json': { schema: Report, io: 'output' },
  'faults.schema.json': { schema: FaultPlan, io: 'input' },
} as const satisfies Record<string, { schema: z.ZodType; io: 'input' | 'output' }>;

/** The text of one schema file; draft-07 is what yaml-language-server reads most completely. */
export function jsonSchemaText(schema: z.ZodType, io: 'input' | 'output' = 'input'): string {
  // A written file repeats its shapes (an interval in every figure): shared definitions keep it readable.
  return `${JSON.stringify(z.toJSONSchema(schema, { io, target: 'draft-7', ...(io === 'output' ? { reused: 'ref' as const } : {}) }), null, 2)}\n`;
}

/** Every schema file, by name, as it should be committed. */
export function jsonSchemaFiles(): Record<string, string> {
  return Object.fromEntries(Object.entries(JSON_SCHEMA_SOURCES).map(([name, { schema, io }]) => [name, jsonSchemaText(schema, io)]));
}
