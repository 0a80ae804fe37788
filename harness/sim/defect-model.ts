import { RdhError } from '../../engine/index.js';

/** A defect model that cannot serve a draw: a requirement without variants, or an unknown variant. */
export class DefectModelError extends RdhError {
  readonly code = 'sim_defect_model';
}

/**
 * What the generative model needs to know about planted defects: for each requirement, the
 * patches that can be planted in it (its variants) and the requirements each one breaks.
 * The corpus's defect table (corpus/defects.yaml) is the real one; tests also build synthetic
 * ones, e.g. with collateral breakage, to exercise the closed form.
 */

/** One plantable patch: its id and every requirement it breaks (its own first, then collateral). */
export interface DefectVariant {
  id: string;
  breaks: readonly string[];
}

/** Requirement id -> its plantable variants (at least one each). */
export type DefectModel = Readonly<Record<string, readonly DefectVariant[]>>;

/** A defect present in a tree: the requirement it was planted in, and which variant. */
export type PresentDefects = ReadonlyMap<string, string>;

/** One variant per requirement that breaks that requirement alone: the model without collateral. */
export function isolatedDefects(requirements: readonly string[]): DefectModel {
  return Object.fromEntries(requirements.map((r) => [r, [{ id: `isolated-${r}`, breaks: [r] }]]));
}

/** The variant planted for one uniform (uniform among the requirement's variants). */
export function pickVariant(model: DefectModel, requirement: string, u: number): string {
  const variants = model[requirement];
  if (!variants || variants.length === 0) throw new DefectModelError(`no planted defect for ${requirement} in the defect model`);
  return variants[Math.min(variants.length - 1, Math.floor(u * variants.length))]!.id;
}

/** Requirements broken by the defects present (their own and collateral). */
export function brokenRequirements(model: DefectModel, present: PresentDefects): Set<string> {
  const broken = new Set<string>();
  for (const [requirement, variantId] of present) {
    const variant = model[requirement]?.find((v) => v.id === variantId);
    if (!variant) throw new DefectModelError(`defect ${variantId} is not a variant of ${requirement} in the defect model`);
    for (const r of variant.breaks) broken.add(r);
  }
  return broken;
}

/** The passing requirements of a graded tree: those no present defect breaks. */
export function passingRequirements(model: DefectModel, requirements: readonly string[], present: PresentDefects): string[] {
  const broken = brokenRequirements(model, present);
  return requirements.filter((r) => !broken.has(r));
}
