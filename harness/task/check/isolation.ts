import { propertyOf, skipped, type GradedTree, type PropertyResult } from './check-result.js';
import type { MutantDeclaration } from './mutant-checks.js';

/**
 * Isolation between requirements: a requirement's cases depend only on its own features or on
 * the requirements task.yaml declares it depends on (`depends_on`). Seen through the mutants:
 * under a tree of mutants that declare breaking only R36, a failing case of R05 shows that
 * R05's case relies on R36's behaviour; unless R05 declares that dependency, the case leaks
 * into a second requirement, and the failure names it. (mutants-exact names the same grading
 * from the mutant's side: its declaration is then wrong or the case is.) Pure.
 */
export function isolation(
  mutants: readonly MutantDeclaration[],
  dependsOn: Readonly<Record<string, readonly string[]>>,
  trees: readonly GradedTree[],
): PropertyResult {
  const graded = trees.filter((t) => t.kind === 'mutants' && t.mode === 'fork');
  if (!graded.length) return skipped('isolation', 'no mutant graded');
  const byId = new Map(mutants.map((m) => [m.id, m]));
  const failures: string[] = [];
  let allowed = 0;
  for (const t of graded) {
    const declared = new Set(t.members.flatMap((id) => byId.get(id)?.breaks ?? []));
    for (const c of t.failedCases) {
      if (declared.has(c.req)) continue;
      const via = (dependsOn[c.req] ?? []).filter((r) => declared.has(r));
      if (via.length) {
        allowed++;
        continue;
      }
      failures.push(`case ${c.case} (${c.req}) fails under ${t.name}, which declares breaking ${[...declared].sort().join(', ')}: ${c.req} declares no dependency on them in task.yaml`);
    }
  }
  const declaredEdges = Object.values(dependsOn).reduce((n, d) => n + d.length, 0);
  return propertyOf(
    'isolation',
    failures,
    `${graded.length} mutant trees: every failing case belongs to a requirement they declare breaking${allowed ? ` or depends on one (${allowed} case(s) via task.yaml)` : ''}; ${declaredEdges} declared dependencies`,
    `${failures.length} case(s) depend on another requirement's features without a declared dependency`,
  );
}
