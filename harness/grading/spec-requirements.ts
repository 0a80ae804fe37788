import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { RdhError } from '../../engine/index.js';

/**
 * One numbered requirement of a task specification. The `criterion` text is what planners
 * see and claim; it restates observable behaviour and never names a test. A spec holds any
 * number of them, and every count the harness prints is the spec's own.
 */
export const Requirement = z
  .object({
    id: z.string().regex(/^R\d{2}$/),
    area: z.string().min(1),
    title: z.string().min(1),
    criterion: z.string().min(1),
    /**
     * True for a requirement about the output's format (how results are rendered) rather than
     * what is computed: a mutant that changes only the format may break these and no other.
     * Absent means false.
     */
    output: z.literal(true).optional(),
  })
  .strict();
export type Requirement = z.infer<typeof Requirement>;

export const Requirements = z.array(Requirement).min(1);

export class SpecInvalidError extends RdhError {
  readonly code = 'spec_invalid';
}

/** Loads and validates `<specDir>/requirements.yaml`; ids must be unique and in order. */
export async function loadRequirements(dir: string): Promise<Requirement[]> {
  const file = path.join(dir, 'requirements.yaml');
  const text = await readFile(file, 'utf8').catch((cause) => {
    throw new SpecInvalidError(`${file}: cannot read (${(cause as Error).message}); is the spec dir right?`, { cause });
  });
  const parsed = Requirements.safeParse(parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SpecInvalidError(`${file}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const ids = parsed.data.map((r) => r.id);
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  if (dupes.length) throw new SpecInvalidError(`${file}: duplicate requirement ids ${dupes.join(', ')}`);
  return parsed.data;
}
