import { flatten, type Arm, type MergeAttempt, type NodeResult } from '../../engine/index.js';
import type { GradeResult } from '../grading/grading-report.js';

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

/** One arm of a spec-driven or paired solve, as `harness solve` reports it. */
export interface ArmReport {
  arm: Arm;
  root: NodeResult;
  /** The held-out oracle's grading of the root tree; null when the run had no spec. */
  grade: GradeResult | null;
  /** Sessions this arm ran on its own (its merges), beside the shared build's. */
  sessions: number;
}

export interface PairReport {
  goal: string;
  /** Present when the simulated population answered every call. */
  simulated: { planted: string; models: string[] } | null;
  /** `shared` when several arms assembled one build. */
  pairing: 'shared' | 'single';
  build: { tokens: number; costUsd: number; sessions: number; leaves: number };
  arms: ArmReport[];
  trace: string;
}

const COLUMN = 46;
const LABEL = 30;
const pad = (s: string, n: number) => (s.length >= n ? `${s} ` : s.padEnd(n));
const row = (label: string, cells: string[]) => `${pad(label, LABEL)}${cells.map((c, i) => (i === cells.length - 1 ? c : pad(c, COLUMN))).join('')}`.trimEnd();
const tokenCount = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** A node's outcome in one arm, in a few words. */
function outcome(n: NodeResult): string {
  const why = n.stop ? ` (stopped by ${n.stop.by})` : '';
  if (n.merge) return `${n.verdict}${why}, ${plural(n.merge.attempts.length, 'attempt')}${n.merge.stop ? ` (${n.merge.stop})` : ''}`;
  const passed = n.checkResults.filter((c) => c.passed).length;
  return `${n.verdict}${why}, ${n.checkResults.length ? `${passed}/${n.checkResults.length} checks` : 'no checks run'}${n.verifiedBy.length ? `, verified by ${n.verifiedBy.join(', ')}` : ''}`;
}

/** Who reviewed one merge attempt and what came of it. */
function reviewText(a: MergeAttempt): string {
  const who = a.reviewer.family ? `${a.reviewer.model} [${a.reviewer.family}]` : 'nobody eligible';
  const found = plural(a.findings.length, 'finding');
  if (a.reviewer.kind === 'self') return `self-review by ${who}, not used; ${found}`;
  const said = a.accept === null ? 'no verdict' : a.accept ? 'approved' : 'rejected';
  return `${said} by ${who}${a.reviewer.independent ? ', independent' : ', NOT independent'}; ${found}; ${a.verdict}`;
}

/**
 * The text `harness solve --spec` and `--arm both` print: the arms side by side. The tree's
 * leaves are built once and shared, so they print once; every merge prints per arm with who
 * reviewed each attempt; then the verdict, the oracle's score, and what each arm spent.
 */
export function renderPair(report: PairReport): string {
  const arms = report.arms;
  const lines: string[] = [];
  if (report.simulated) {
    lines.push(`SIMULATED  every call was answered by the built-in simulated population, never a model: ${report.simulated.planted}`);
    lines.push(`           models: ${report.simulated.models.join('; ')}`);
  }
  lines.push(`GOAL       ${report.goal}`);
  if (report.pairing === 'shared') lines.push(`PAIRING    shared: planning and ${report.build.leaves} ${report.build.leaves === 1 ? 'leaf' : 'leaves'} built once; the arms diverge at the first merge`);
  lines.push('', row('TREE', arms.map((a) => a.arm)));
  const byArm = arms.map((a) => new Map(flatten(a.root).map((n) => [n.id, n])));
  for (const node of flatten(arms[0]!.root)) {
    const label = `${'  '.repeat(node.depth)}${node.id} [${node.mode}]`;
    if (!node.merge && node.mode === 'leaf') {
      lines.push(row(label, [`${outcome(node)}${arms.length > 1 ? ' (shared)' : ''}`]));
      continue;
    }
    lines.push(row(label, byArm.map((m) => (m.get(node.id) ? outcome(m.get(node.id)!) : '-'))));
    const attempts = Math.max(...byArm.map((m) => m.get(node.id)?.merge?.attempts.length ?? 0));
    for (let i = 0; i < attempts; i++) {
      lines.push(row(`${'  '.repeat(node.depth)}  review ${i + 1}`, byArm.map((m) => { const a = m.get(node.id)?.merge?.attempts[i]; return a ? reviewText(a) : '-'; })));
    }
  }
  const graded = arms.some((a) => a.grade);
  lines.push(
    '',
    row('', arms.map((a) => a.arm)),
    row('VERDICT', arms.map((a) => a.root.verdict)),
    ...(graded ? [row('ORACLE', arms.map((a) => (a.grade ? `satisfied ${a.grade.satisfied}/${a.grade.total}` : 'not graded'))), row('TESTS CARRIED', arms.map((a) => (a.grade ? plural(a.grade.testFiles, 'test file') : '-')))] : []),
    row('SPEND', arms.map((a) => `${tokenCount(a.root.tokens)} tokens, $${a.root.costUsd.toFixed(4)}`)),
    row('  of it this arm\'s merges', arms.map((a) => `${tokenCount(a.root.tokens - report.build.tokens)} tokens`)),
    row('SESSIONS', arms.map((a) => `${report.build.sessions + a.sessions} (${report.build.sessions} build + ${a.sessions} merge)`)),
    row('HUMAN', arms.map((a) => (a.root.openQuestions.length ? `needed: ${a.root.openQuestions.join(' | ')}` : 'not needed'))),
    '',
    `BUILD      ${report.pairing === 'shared' ? 'shared by the arms, paid once' : 'this arm\'s'}: ${tokenCount(report.build.tokens)} tokens, $${report.build.costUsd.toFixed(4)}, ${plural(report.build.sessions, 'session')}${report.simulated ? ' (synthetic tokens: SIMULATED usage, priced at $0)' : ''}`,
    `TRACE      ${report.trace}`,
    '',
  );
  return lines.join('\n');
}
