import { propertyOf, skipped, type GradedTree, type PropertyResult } from './check-result.js';

/**
 * The three baselines of an oracle: the reference passes every case (the cases are
 * satisfiable), the empty tree earns nothing, and no program that ignores its input earns a
 * requirement (each requirement needs behaviour, not a lucky constant). Pure.
 */
export function baselineProperties(trees: readonly GradedTree[]): PropertyResult[] {
  const of = (kind: GradedTree['kind']) => trees.filter((t) => t.kind === kind);
  const reference = of('reference');
  const empty = of('empty');
  const constants = of('constant');
  return [
    reference.length
      ? propertyOf(
          'reference-passes',
          reference.flatMap((t) => t.failedCases.map((c) => `${t.name}: case ${c.case} (${c.req}) fails: ${c.reason}`)),
          `${reference[0]!.satisfied}/${reference[0]!.total} requirements, every case`,
          `the reference fails ${reference.reduce((n, t) => n + t.failedCases.length, 0)} case(s)`,
        )
      : skipped('reference-passes', 'baselines not graded'),
    empty.length
      ? propertyOf('empty-tree-zero', empty.filter((t) => t.satisfied > 0).map((t) => `${t.name} earns ${earned(t)}`), `0/${empty[0]!.total}${onSubset(empty)}`)
      : skipped('empty-tree-zero', 'baselines not graded'),
    constants.length
      ? propertyOf('constant-programs-zero', constants.filter((t) => t.satisfied > 0).map((t) => `${t.name} earns ${earned(t)}`), (constants.length === 1 ? `1 program that ignores its input (${constants[0]!.name}), 0/${constants[0]!.total}` : `${constants.length} programs that ignore their input, each 0/${constants[0]!.total}`) + onSubset(constants))
      : skipped('constant-programs-zero', 'baselines not graded'),
  ];
}

/** How much of the oracle settled a zero, when a subset did (task check --quick). */
function onSubset(trees: readonly GradedTree[]): string {
  const sizes = [...new Set(trees.flatMap((t) => (t.cases ? [t.cases.length] : [])))];
  return sizes.length ? `, failing a case of every requirement among ${sizes.join(' or ')} cases` : '';
}

/** What a tree earned, naming the requirements when only a few: what a failure must show. */
function earned(t: GradedTree): string {
  return `${t.satisfied}/${t.total}${t.passing.length <= 8 ? ` (${t.passing.join(', ')})` : ''}`;
}
