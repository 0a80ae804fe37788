import type { CheckResult } from '../base/check.js';
import type { Verdict } from '../base/verdict.js';
import { UNPLACED, isUnplaced } from '../runtime/model-family.js';

/** What the independent verifier returned, and who actually answered. */
export interface VerifierOpinion {
  verdict: 'DONE' | 'NOT_DONE' | 'CHECKS_INADEQUATE';
  /** The model that answered (not the one configured). */
  model: string;
  family: string;
  findings: string[];
}

export interface GateInput {
  /** Results of the checks as the engine re-ran them for the verifier; reported passes do not count. */
  checks: CheckResult[];
  verifier: VerifierOpinion | null;
  /** Families of every model that produced work on the node (as answered). */
  contributorFamilies: string[];
  /** Open `NEEDS HUMAN:` questions on the node or any child. */
  openQuestions: string[];
}

export interface Override {
  from: Verdict;
  to: Verdict;
  rule: 'failing_check' | 'verifier_not_independent' | 'needs_human_open';
  detail: string;
}

export interface GateOutcome {
  verdict: Verdict;
  /** A plain account of why, one line each. */
  reasons: string[];
  overrides: Override[];
}

/**
 * Deterministic rules a model cannot argue past. DONE only when every check passed, a family
 * that contributed nothing signed off, and no question for a person is open. When the
 * verifier said DONE and a rule disagrees, the rule wins and the override is recorded.
 */
export function gate(input: GateInput): GateOutcome {
  const failing = input.checks.filter((c) => !c.passed);
  const said = input.verifier?.verdict ?? null;
  const override = (to: Verdict, rule: Override['rule'], detail: string): Override[] =>
    said === 'DONE' ? [{ from: 'DONE', to, rule, detail }] : [];

  if (input.openQuestions.length) {
    const detail = `open question(s) only a person can settle: ${input.openQuestions.join(' | ')}`;
    return { verdict: 'NEEDS_HUMAN', reasons: [detail], overrides: override('NEEDS_HUMAN', 'needs_human_open', detail) };
  }
  if (input.checks.length === 0) {
    return { verdict: 'NOT_DONE', reasons: ['no check ran, so nothing shows the goal was met'], overrides: override('NOT_DONE', 'failing_check', 'no checks') };
  }
  if (failing.length) {
    const detail = `${failing.length} of ${input.checks.length} check(s) failed: ${failing.map((c) => c.id).join(', ')}`;
    return { verdict: 'NOT_DONE', reasons: [detail], overrides: override('NOT_DONE', 'failing_check', detail) };
  }
  if (!input.verifier) {
    return { verdict: 'NOT_DONE', reasons: ['no independent verifier signed off'], overrides: [] };
  }
  const unplaced = [input.verifier.family, ...input.contributorFamilies].find(isUnplaced);
  if (unplaced) {
    const detail = `${unplaced.slice(UNPLACED.length)} cannot be placed in a family, so the verifier cannot be shown independent of the work`;
    return { verdict: 'NOT_DONE', reasons: [detail], overrides: override('NOT_DONE', 'verifier_not_independent', detail) };
  }
  if (input.contributorFamilies.includes(input.verifier.family)) {
    const detail = `verifier ${input.verifier.model} is of family ${input.verifier.family}, which contributed to this work`;
    return { verdict: 'NOT_DONE', reasons: [detail], overrides: override('NOT_DONE', 'verifier_not_independent', detail) };
  }
  if (said === 'CHECKS_INADEQUATE') {
    return { verdict: 'CHECKS_INADEQUATE', reasons: ['every check passed, but the verifier judged the set too weak to prove the goal', ...input.verifier.findings], overrides: [] };
  }
  if (said === 'NOT_DONE') {
    return { verdict: 'NOT_DONE', reasons: ['every check passed, but the verifier found the work incomplete', ...input.verifier.findings], overrides: [] };
  }
  return {
    verdict: 'DONE',
    reasons: [`all ${input.checks.length} check(s) passed and ${input.verifier.family} (${input.verifier.model}), which contributed nothing, signed off`],
    overrides: [],
  };
}
