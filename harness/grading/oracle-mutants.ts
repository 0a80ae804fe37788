import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { OracleInvalidError } from './oracle-invalid-error.js';

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
    /**
     * The one sentence of SPEC.md it violates, by its id in coverage.yaml (e.g. "s4.2-04"). The
     * cases coverage.yaml maps to that sentence must kill it: that is what makes the map a claim
     * that can fail, rather than a list of cases that merely mention the topic.
     */
    sentence: z.string().regex(/^s\d(\.\d)?-\d{2}$/).optional(),
    /**
     * Mutants whose bugs interact with this one's (one masks or redefines the other), so the
     * two are never packed into one group tree: there the union of their breaks would not hold.
     */
    apart: z.array(z.string().regex(/^m-[a-z0-9-]+$/)).min(1).optional(),
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

/** The reference's files (relative path -> text) with the mutants applied in order; pure. */
export function patchSources(sources: Readonly<Record<string, string>>, mutants: readonly Mutant[]): Record<string, string> {
  const out = { ...sources };
  for (const mutant of mutants) {
    for (const edit of mutant.patch) {
      const text = out[edit.file];
      const count = text === undefined ? 0 : text.split(edit.find).length - 1;
      if (count !== 1) {
        throw new OracleInvalidError(`mutant ${mutant.id}: ${edit.file}: the text to find occurs ${count} times, expected exactly once`);
      }
      out[edit.file] = text!.replace(edit.find, () => edit.replace);
    }
  }
  return out;
}

/**
 * Copies the reference tree to `outDir` and applies the mutants in order; each `find` must
 * occur exactly once in the file as the earlier patches left it (so two mutants that touch
 * the same text cannot be combined silently).
 */
export async function applyMutants(referenceDir: string, mutants: readonly Mutant[], outDir: string): Promise<void> {
  await cp(referenceDir, outDir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  const files = [...new Set(mutants.flatMap((m) => m.patch.map((p) => p.file)))];
  const sources = Object.fromEntries(await Promise.all(files.map(async (f) => [f, await readFile(path.join(outDir, f), 'utf8').catch(() => undefined)] as const)).then((e) => e.filter(([, t]) => t !== undefined)));
  const patched = patchSources(sources as Record<string, string>, mutants);
  for (const [file, text] of Object.entries(patched)) await writeFile(path.join(outDir, file), text);
}

/** Copies the reference tree to `outDir` and applies one mutant. */
export function applyMutant(referenceDir: string, mutant: Mutant, outDir: string): Promise<void> {
  return applyMutants(referenceDir, [mutant], outDir);
}

/**
 * Packs mutants into groups that can share one tree: within a group no two mutants break a
 * common requirement, none is recorded `apart` from another, and their patches apply together
 * (each text to find still occurs exactly once), so the group's tree should fail exactly the
 * union of their recorded breaks. First fit in file order, at most `size` per group; pure.
 */
export function mutantGroups(mutants: readonly Mutant[], sources: Readonly<Record<string, string>>, size: number): Mutant[][] {
  const groups: Mutant[][] = [];
  const fits = (group: Mutant[], m: Mutant) => {
    if (group.length >= size || group.some((g) => g.breaks.some((b) => m.breaks.includes(b)))) return false;
    if (group.some((g) => g.apart?.includes(m.id) || m.apart?.includes(g.id))) return false;
    try {
      patchSources(sources, [...group, m]);
      return true;
    } catch {
      return false;
    }
  };
  for (const m of mutants) {
    const group = groups.find((g) => fits(g, m));
    if (group) group.push(m);
    else groups.push([m]);
  }
  return groups;
}
