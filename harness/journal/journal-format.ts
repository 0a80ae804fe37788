import { z } from 'zod';

/**
 * What every journal line carries before its own payload: `type` (the discriminator),
 * `version` (the format of that type's payload), `seq` (1, 2, 3... with no gaps, so a file
 * that lost lines is told apart from one whose last write was torn) and `at` (when the
 * writer made it durable-bound, ISO 8601 UTC).
 */
export const JournalEnvelope = z.object({
  type: z.string(),
  version: z.int().positive(),
  seq: z.int().positive(),
  at: z.iso.datetime(),
});
export type JournalEnvelope = z.infer<typeof JournalEnvelope>;

/**
 * One event type of a journal: the envelope with its `type` and `version` fixed, plus its
 * payload. Strict, so a misspelt field is refused rather than silently dropped.
 */
export function journalEvent<const T extends string, const V extends number, S extends z.ZodRawShape>(type: T, version: V, payload: S) {
  return z.strictObject({ type: z.literal(type), version: z.literal(version), seq: JournalEnvelope.shape.seq, at: JournalEnvelope.shape.at, ...payload });
}

type AnyEventSchema = z.ZodObject<{ type: z.ZodLiteral<string>; version: z.ZodLiteral<number> } & z.ZodRawShape>;

/** A journal's whole vocabulary: the union of its event types, and which version of each this harness reads. */
export interface JournalFormat<E extends JournalEnvelope> {
  /** What the file is, for messages ("sweep journal"). */
  readonly what: string;
  readonly schema: z.ZodType<E>;
  /** The one version of each type this harness reads and writes. */
  readonly versions: ReadonlyMap<string, number>;
}

/** Builds a format from its event types (each made by `journalEvent`). */
export function journalFormat<const O extends readonly [AnyEventSchema, ...AnyEventSchema[]]>(what: string, events: O): JournalFormat<z.output<O[number]> & JournalEnvelope> {
  const versions = new Map<string, number>();
  for (const event of events) {
    const type = event.shape.type.value;
    if (versions.has(type)) throw new Error(`${what}: event type ${type} is defined twice`);
    versions.set(type, event.shape.version.value);
  }
  const schema = z.discriminatedUnion('type', events) as unknown as z.ZodType<z.output<O[number]> & JournalEnvelope>;
  return { what, schema, versions };
}

/**
 * What a caller hands to `append`: an event without the fields the journal fills in itself
 * (its version comes from the format, its seq and time from the writer).
 */
export type JournalInput<E> = E extends unknown ? Omit<E, 'version' | 'seq' | 'at'> : never;
