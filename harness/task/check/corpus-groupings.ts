import { streamDraws } from '../../sim/draw.js';
import type { DefectDeclaration } from './corpus-checks.js';

/**
 * Which trees of planted defects a check grades. `npm test` grades two groupings of all the
 * defects, each group's defects breaking disjoint requirements and no two defects sharing a
 * group in both: a defect that breaks less than recorded shows in either grouping, one that
 * breaks more shows where no partner already breaks that requirement. Plus a few seeded
 * random subsets, one defect per requirement, as a simulated tree carries them. The
 * exhaustive form grades every defect alone as well. Pure.
 */

/** Defects per group tree. */
export const DEFECT_GROUP_SIZE = 7;
/** Defects a simulated tree carries at once, about. */
export const SUBSET_SIZE = 8;
export const SUBSET_SEEDS: readonly number[] = [20, 2020, 202020];

/** First fit into groups of at most `size` with disjoint breaks, never joining two that `apart` says already met. */
export function defectGrouping<D extends DefectDeclaration>(defects: readonly D[], size: number, apart: (a: D, b: D) => boolean = () => false): D[][] {
  const groups: D[][] = [];
  for (const d of defects) {
    const fits = (g: D[]) => g.length < size && g.every((o) => !o.breaks.some((b) => d.breaks.includes(b)) && !apart(o, d));
    const group = groups.find(fits);
    if (group) group.push(d);
    else groups.push([d]);
  }
  return groups;
}

/** The two groupings: the table in order, then in a stride of 5, with no pair together twice. */
export function twoGroupings<D extends DefectDeclaration>(defects: readonly D[], size = DEFECT_GROUP_SIZE): { first: D[][]; second: D[][] } {
  const first = defectGrouping(defects, size);
  const together = new Set(first.flatMap((g) => g.flatMap((a) => g.map((b) => `${a.id} ${b.id}`))));
  const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
  // A stride that shares no factor with the table's length visits every defect once.
  const stride = [5, 7, 3, 11, 13].find((k) => gcd(k, defects.length) === 1) ?? 1;
  const strided = defects.map((_, i) => defects[(i * stride) % defects.length]!);
  return { first, second: defectGrouping(strided, size, (a, b) => together.has(`${a.id} ${b.id}`)) };
}

/**
 * `size` distinct requirements drawn uniformly (seeded), each with one of its defects picked
 * uniformly: requirement -> defect id. Fewer when fewer requirements have defects.
 */
export function randomSubset<D extends DefectDeclaration>(defects: readonly D[], seed: number, size = SUBSET_SIZE): Map<string, string> {
  const u = streamDraws(seed);
  const pool = [...new Set(defects.map((d) => d.requirement))].sort();
  const present = new Map<string, string>();
  for (let i = 0; i < Math.min(size, pool.length); i++) {
    const k = i + Math.floor(u({ node: 'task-check', role: 'executor', attempt: 1, decision: 'defect', item: i }) * (pool.length - i));
    [pool[i], pool[k]] = [pool[k]!, pool[i]!];
    const variants = defects.filter((d) => d.requirement === pool[i]);
    const pick = Math.floor(u({ node: 'task-check', role: 'executor', attempt: 1, decision: 'variant', item: pool[i]! }) * variants.length);
    present.set(pool[i]!, variants[pick]!.id);
  }
  return present;
}
