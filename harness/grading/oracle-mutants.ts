import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { OracleInvalidError } from './oracle-cases.js';

/**
 * A small patch to the reference implementation, recording exactly which requirements it
 * breaks. Together the mutants prove the oracle discriminates per requirement: each
 * requirement has a mutant that fails it while the others still pass.
 */
export const Mutant = z
  .object({
    id: z.string().regex(/^m-[a-z0-9-]+$/),
    description: z.string().min(1),
    breaks: z.array(z.string().regex(/^R\d{2}$/)).min(1),
    /** A bug of output layout alone (spec 6.2-6.4): it must fail output requirements only. */
    output: z.boolean().optional(),
    /** The spec sections whose sentences it violates, e.g. ["5.3"]: every section has a mutant. */
    sections: z.array(z.string().regex(/^\d(\.\d)?$/)).min(1).optional(),
    patch: z
      .array(z.object({ file: z.string().min(1), find: z.string().min(1), replace: z.string() }).strict())
      .min(1),
  })
  .strict();
export type Mutant = z.infer<typeof Mutant>;

export async function loadMutants(oracleDir: string): Promise<Mutant[]> {
  const raw: unknown = parse(await readFile(path.join(oracleDir, 'mutants.yaml'), 'utf8'));
  const parsed = z.array(Mutant).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OracleInvalidError(`mutants.yaml: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Copies the reference tree to `outDir` and applies the mutant; each `find` must occur exactly once. */
export async function applyMutant(referenceDir: string, mutant: Mutant, outDir: string): Promise<void> {
  await cp(referenceDir, outDir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  for (const edit of mutant.patch) {
    const file = path.join(outDir, edit.file);
    const text = await readFile(file, 'utf8');
    const count = text.split(edit.find).length - 1;
    if (count !== 1) {
      throw new OracleInvalidError(`mutant ${mutant.id}: ${edit.file}: the text to find occurs ${count} times, expected exactly once`);
    }
    await writeFile(file, text.replace(edit.find, () => edit.replace));
  }
}
