import { z } from 'zod';

/**
 * How many sessions a sweep keeps in flight: a fixed number, as before, or bounds for the
 * adaptive rate controller (engine/ports/rate-control.ts), which finds the provider's limit
 * itself. The manifest and `--concurrency` share this one definition.
 */

const Bound = z.int('must be a whole number').positive('must be a positive whole number');

/** Adaptive bounds: calls in flight per provider key start at `start` and stay within [min, max]. */
export const ConcurrencyBounds = z
  .object({
    min: Bound.describe('Fewest calls in flight per provider key, however many 429s arrive. No default.').meta({ examples: [4] }),
    start: Bound.describe('Calls in flight per provider key before anything is measured; doubles until the first rate-limit episode. No default.').meta({ examples: [20] }),
    max: Bound.describe('Most calls in flight per provider key, however fast the provider answers. No default.').meta({ examples: [100] }),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.min > b.start) ctx.addIssue({ code: 'custom', path: ['start'], message: `is below min (${b.min}); start within [min, max]` });
    if (b.start > b.max) ctx.addIssue({ code: 'custom', path: ['max'], message: `is below start (${b.start}); max must be at least start` });
  });
export type ConcurrencyBounds = z.infer<typeof ConcurrencyBounds>;

const TEXT = /^(\d+)-(\d+)-(\d+)$/;

/** "MIN-START-MAX", read as bounds. */
const BoundsText = z
  .string()
  .regex(TEXT, 'is not MIN-START-MAX (three whole numbers, e.g. "4-20-100"), nor a whole number')
  .transform((text, ctx) => {
    const [, min, start, max] = TEXT.exec(text)!.map(Number);
    const parsed = ConcurrencyBounds.safeParse({ min, start, max });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', message: `${issue.path.join('.')} ${issue.message}` });
      return z.NEVER;
    }
    return parsed.data;
  });

/** A manifest's `concurrency`: a whole number (fixed sessions in flight), "MIN-START-MAX", or `{min, start, max}`. */
export const Concurrency = z
  .union([Bound, BoundsText, ConcurrencyBounds])
  .describe(
    'Sessions in flight across the sweep. A whole number keeps that many, fixed (the default, 4). Bounds (`{min, start, max}` or "MIN-START-MAX", e.g. "4-20-100") hand it to the adaptive rate controller: one per provider key, limiting calls in flight, paced by the rate-limit headers a provider sends, else additive increase and multiplicative decrease on 429s; sessions are admitted from the calls it allows and the measured share of a session spent waiting on the model, never beyond the Docker hosts\' capacity. Changes wall-clock time, never what is measured. Default 4.',
  )
  .meta({ examples: [4, '4-20-100'] });
export type Concurrency = z.infer<typeof Concurrency>;

/** The normalised form every consumer reads. */
export type ConcurrencyPlan = { kind: 'fixed'; sessions: number } | ({ kind: 'adaptive' } & ConcurrencyBounds);

export function concurrencyPlan(value: Concurrency): ConcurrencyPlan {
  return typeof value === 'number' ? { kind: 'fixed', sessions: value } : { kind: 'adaptive', ...value };
}

/** As a person writes it: "4" or "4-20-100". */
export function concurrencyText(value: Concurrency): string {
  return typeof value === 'number' ? String(value) : `${value.min}-${value.start}-${value.max}`;
}

/** `--concurrency` value: the same forms as the manifest's, or a one-line error naming what was given and the fix. */
export function parseConcurrencyFlag(value: string): Concurrency {
  const text = value.trim();
  // The branch the text is written in, so the error is that branch's, not "invalid input".
  const parsed = /^\d+$/.test(text) ? Bound.safeParse(Number(text)) : BoundsText.safeParse(text);
  if (parsed.success) return parsed.data;
  throw new RangeError(`expected a whole number of at least 1 (fixed) or MIN-START-MAX bounds such as 4-20-100, got ${JSON.stringify(value)} (${parsed.error.issues[0]?.message ?? 'unreadable'}).`);
}

/** Sessions in flight where nothing adapts (replay answers from transcripts): the number, or the bounds' start. */
export function fixedSessions(value: Concurrency): number {
  return typeof value === 'number' ? value : value.start;
}
