import type { OracleCase } from '../../grading/oracle-cases.js';
import { canonicalJson } from '../../internal/canonical-json.js';

/**
 * Subsets of an oracle's cases that settle a property without every case. Pure.
 *
 * A requirement is earned only when every one of its cases passes, so a tree that fails at
 * least one case of each requirement within a subset earns nothing under the whole oracle
 * either: a grading of the subset proves "earns 0" (the empty tree, a constant program). It
 * cannot prove the converse, so a tree that earns a requirement on the subset is graded again
 * on every case (check-run.ts).
 */

/** Cases of each requirement kept by {@link coveringCases}. */
export const COVERING_PER_REQUIREMENT = 2;

/**
 * Per requirement, its first case expecting exit 0 (which a program that cannot run fails),
 * then its first case expecting something else, preferring another exit status (which no
 * program that ignores its input passes as well as the first), up to `perRequirement` cases;
 * in the oracle's order.
 */
export function coveringCases(cases: readonly OracleCase[], perRequirement = COVERING_PER_REQUIREMENT): string[] {
  const byReq = new Map<string, OracleCase[]>();
  for (const c of cases) byReq.set(c.req, [...(byReq.get(c.req) ?? []), c]);
  const keep = new Set<string>();
  for (const list of byReq.values()) {
    const picked: OracleCase[] = [list.find((c) => c.expect.exit === 0) ?? list[0]!];
    const seen = () => new Set(picked.map((c) => canonicalJson(c.expect)));
    while (picked.length < perRequirement) {
      const fresh = list.filter((c) => !seen().has(canonicalJson(c.expect)));
      const next = fresh.find((c) => !picked.some((p) => p.expect.exit === c.expect.exit)) ?? fresh[0];
      if (!next) break;
      picked.push(next);
    }
    for (const c of picked) keep.add(c.id);
  }
  return cases.filter((c) => keep.has(c.id)).map((c) => c.id);
}

/**
 * The cases a second grading of a mutant tree (the other start mode) is compared on: the
 * covering cases and every case of the requirements its mutants declare breaking, where its
 * failures are; in the oracle's order.
 */
export function twinCases(cases: readonly OracleCase[], breaks: readonly string[]): string[] {
  const covering = new Set(coveringCases(cases));
  const broken = new Set(breaks);
  return cases.filter((c) => covering.has(c.id) || broken.has(c.req)).map((c) => c.id);
}
