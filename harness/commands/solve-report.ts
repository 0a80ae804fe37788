import { flatten, type NodeResult } from '../../engine/index.js';

/** The text `harness solve` prints: the tree, then the verdict and what it cost. */
export function renderSolve(root: NodeResult, extra: { trace: string; goal: string }): string {
  const nodes = flatten(root);
  const line = (n: NodeResult) => {
    const passed = n.checkResults.filter((c) => c.passed).length;
    const checks = n.checkResults.length ? `${passed}/${n.checkResults.length} checks` : 'no checks run';
    const verified = n.verifiedBy.length ? `verified by ${n.verifiedBy.join(', ')}` : 'not verified';
    const why = n.stop ? ` (stopped by ${n.stop.by}${n.stop.model ? `: ${n.stop.model}` : ''})` : '';
    return `${'  '.repeat(n.depth)}${n.id} [${n.mode}] ${n.verdict}${why}  ${checks}, ${verified}, ${n.tokens.toLocaleString('en-US')} tokens  ${truncate(n.goal, 60)}`;
  };
  const families = [...new Set(nodes.flatMap((n) => n.verifiedBy))];
  const questions = root.openQuestions;
  const passed = root.checkResults.filter((c) => c.passed).length;
  return [
    `GOAL     ${extra.goal}`,
    '',
    ...nodes.map(line),
    '',
    `VERDICT  ${root.verdict}`,
    ...root.reasons.map((r) => `         ${r}`),
    `CHECKS   ${passed}/${root.checkResults.length} passed at the root${families.length ? `; families that verified: ${families.join(', ')}` : ''}`,
    ...(nodes.some((n) => n.stop?.by === 'provider')
      ? [`PROVIDER ${nodes.filter((n) => n.stop?.by === 'provider').map((n) => `${n.id} stopped by ${n.stop!.model} (${n.stop!.code})`).join('; ')}`]
      : []),
    `MONITOR  ${nodes.flatMap((n) => n.monitorFlags).length} flag(s); ${nodes.reduce((s, n) => s + n.checkRewrites, 0)} check set(s) rewritten as inadequate; ${nodes.flatMap((n) => n.overrides).length} override(s)`,
    `SPEND    ${root.tokens.toLocaleString('en-US')} tokens (${root.usage.inputTokens.toLocaleString('en-US')} in, ${root.usage.cachedTokens.toLocaleString('en-US')} of them cached; ${root.usage.outputTokens.toLocaleString('en-US')} out), $${root.costUsd.toFixed(4)}${
      root.estimatedUsageCalls ? `; ${root.estimatedUsageCalls} call(s) reported no usable usage and were charged a conservative estimate` : ''
    }`,
    `HUMAN    ${questions.length ? `needed: ${questions.join(' | ')}` : 'not needed'}`,
    `TRACE    ${extra.trace}`,
    '',
  ].join('\n');
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}
