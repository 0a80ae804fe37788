import { minus, skipped, type GradedTree, type PropertyResult } from './check-result.js';
import type { Peer } from './peers.js';

/**
 * `peers-hold`: every peer fails exactly the requirements its recipe records. The detail names
 * each peer's grade, so the table shows what real programs score; a requirement failed that is
 * not recorded, or a recorded one passed, is a failure naming the peer and the requirement. Pure.
 */
export function peersHold(peers: readonly Pick<Peer, 'name' | 'recipe'>[], trees: readonly GradedTree[]): PropertyResult {
  if (!peers.length) return skipped('peers-hold', 'the task declares no peers (oracle peers/ folder)');
  const failures: string[] = [];
  const grades: string[] = [];
  for (const peer of peers) {
    const tree = trees.find((t) => t.kind === 'peer' && t.members[0] === peer.name);
    if (!tree) {
      failures.push(`peer ${peer.name}: not graded`);
      continue;
    }
    const expected = peer.recipe.expected_failures.map((f) => f.requirement);
    grades.push(`${peer.name} ${tree.satisfied}/${tree.total}${tree.failing.length ? ` (fails ${tree.failing.join(', ')})` : ''}`);
    const extra = minus(tree.failing, expected);
    const fixed = minus(expected, tree.failing);
    if (extra.length) failures.push(`peer ${peer.name}: now also fails ${extra.join(', ')}, which its recipe does not record (${extra.map((r) => reasonOf(tree, r)).join('; ')})`);
    if (fixed.length) failures.push(`peer ${peer.name}: now passes ${fixed.join(', ')}, which its recipe records as failed (${fixed.map((r) => `${r}: ${peer.recipe.expected_failures.find((f) => f.requirement === r)!.reason}`).join('; ')})`);
  }
  const detail = `peers grade as recorded: ${grades.join('; ')}`;
  return failures.length ? { property: 'peers-hold', status: 'fail', detail: `a peer's grade moved: ${grades.join('; ')}`, failures } : { property: 'peers-hold', status: 'pass', detail, failures };
}

/** The first failing case of a requirement, as the report names it (kind of difference only). */
function reasonOf(tree: GradedTree, requirement: string): string {
  const first = tree.failedCases.find((c) => c.req === requirement);
  return first ? `${requirement}: ${first.case}: ${first.reason}` : requirement;
}
