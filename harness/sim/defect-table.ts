import { z } from 'zod';
import { RdhError } from '../../engine/index.js';
import type { DefectModel } from './defect-model.js';

/**
 * The planted defects of the SIMULATED corpus (corpus/defects.yaml): per requirement, small
 * replacements in one file that break its behaviour under the held-out oracle. Every line a
 * patch changes carries a marker comment naming the requirement, so a simulated reviewer that
 * reads the tree can "see" a defect; the oracle judges behaviour only.
 */

/** The marker a patched line carries, followed by the requirement id: `SIMULATED DEFECT R07`. */
export const DEFECT_MARKER = 'SIMULATED DEFECT';

/** The table is malformed, or a patch does not apply to the text it is applied to. */
export class DefectTableError extends RdhError {
  readonly code = 'sim_defect_table';
}

const RequirementId = z.string().regex(/^R\d{2}$/, 'is not a requirement id like R07');

export const PlantedDefect = z
  .object({
    id: z.string().regex(/^d-r\d{2}-[a-z0-9-]+$/, 'is not a defect id like d-r07-short-name'),
    requirement: RequirementId.describe('The requirement the defect is planted in (what a leaf or seam draw names).'),
    breaks: z
      .array(RequirementId)
      .min(1)
      .describe('Every requirement the oracle fails with this defect alone: its own first, then any collateral. The closed-form truth counts all of them.'),
    description: z.string().min(1).describe('What the patched program does wrong, in a few words.'),
    file: z
      .string()
      .regex(/^[A-Za-z0-9_][A-Za-z0-9_./-]*$/, 'is not a relative path inside the corpus')
      .refine((f) => !f.split('/').includes('..'), 'climbs out of the corpus')
      .describe('The one corpus file the patch edits, relative to the corpus root.'),
    find: z.string().min(1).describe('Text that occurs exactly once in the file (before and after other patches).'),
    replace: z.string().describe('Its replacement; every line not already in `find` carries the marker.'),
  })
  .strict()
  .superRefine((d, ctx) => {
    if (d.breaks[0] !== d.requirement) ctx.addIssue({ code: 'custom', path: ['breaks'], message: `must start with the defect's own requirement ${d.requirement}` });
    if (new Set(d.breaks).size !== d.breaks.length) ctx.addIssue({ code: 'custom', path: ['breaks'], message: 'lists a requirement twice' });
    if (d.find === d.replace) ctx.addIssue({ code: 'custom', path: ['replace'], message: 'equals `find`, so the patch changes nothing' });
    const kept = new Set(d.find.split('\n'));
    const marker = `${DEFECT_MARKER} ${d.requirement}`;
    const unmarked = d.replace.split('\n').filter((line) => !kept.has(line) && !line.includes(marker));
    if (unmarked.length > 0) ctx.addIssue({ code: 'custom', path: ['replace'], message: `changes ${unmarked.length} line(s) without the marker "${marker}"; a reviewer could not see it` });
  });
export type PlantedDefect = z.infer<typeof PlantedDefect>;

export const DefectTable = z.array(PlantedDefect).superRefine((table, ctx) => {
  const seen = new Set<string>();
  table.forEach((d, i) => {
    if (seen.has(d.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `"${d.id}" appears twice; give each defect its own id` });
    seen.add(d.id);
  });
});
export type DefectTable = z.infer<typeof DefectTable>;

/** The generative model's view of the table: variants per requirement, with what each breaks. */
export function defectModelOf(table: DefectTable): DefectModel {
  const model: Record<string, { id: string; breaks: string[] }[]> = {};
  for (const d of table) (model[d.requirement] ??= []).push({ id: d.id, breaks: [...d.breaks] });
  return model;
}

/** Requirements among `requirements` that have no planted defect. */
export function uncoveredRequirements(table: DefectTable, requirements: readonly string[]): string[] {
  const covered = new Set(table.map((d) => d.requirement));
  return requirements.filter((r) => !covered.has(r));
}

/** The defect with this id, or a DefectTableError. */
export function defectById(table: DefectTable, id: string): PlantedDefect {
  const found = table.find((d) => d.id === id);
  if (!found) throw new DefectTableError(`no planted defect "${id}" in the defect table`);
  return found;
}

/**
 * Corpus files with the given defects applied, in order: pure, on path -> text. Each `find`
 * must occur exactly once in its file at the moment it is applied, so patches of different
 * requirements compose in any subset.
 */
export function applyDefects(files: Readonly<Record<string, string>>, defects: readonly PlantedDefect[]): Record<string, string> {
  const out = { ...files };
  for (const d of defects) {
    const text = out[d.file];
    if (text === undefined) throw new DefectTableError(`defect ${d.id}: the corpus has no file ${d.file}`);
    const count = text.split(d.find).length - 1;
    if (count !== 1) throw new DefectTableError(`defect ${d.id}: ${d.file}: the text to find occurs ${count} times, expected exactly once`);
    out[d.file] = text.replace(d.find, () => d.replace);
  }
  return out;
}

/** A planted-defect marker seen in a file: what a simulated reviewer reports. */
export interface DefectMarker {
  file: string;
  /** 1-based. */
  line: number;
  requirement: string;
}

/** Every marker in the given files, in file and line order (one per marked line and requirement). */
export function findMarkers(files: Readonly<Record<string, string>>): DefectMarker[] {
  const found: DefectMarker[] = [];
  const pattern = new RegExp(`${DEFECT_MARKER} (R\\d{2})`, 'g');
  for (const file of Object.keys(files).sort()) {
    files[file]!.split('\n').forEach((text, i) => {
      for (const m of text.matchAll(pattern)) found.push({ file, line: i + 1, requirement: m[1]! });
    });
  }
  return found;
}
