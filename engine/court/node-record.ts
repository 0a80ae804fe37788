import type { Check, CheckResult } from '../base/check.js';
import type { Override, VerifierOpinion } from './gate.js';
import { openQuestions } from './questions.js';
import type { RepairStop } from './repair-loop.js';

/**
 * What the court knows about one node, written as each stage learns it, so that however the
 * node ends (DONE or a stop halfway), its result still carries its questions, its checks and
 * their last results, and why its repair loop stopped.
 */
export class NodeRecord {
  readonly assumptions: string[] = [];
  private readonly asked: string[] = [];
  checks: Check[] = [];
  /** The latest results of the checks: the verifier's re-run, or the worker's own when no verification ran. */
  checkResults: CheckResult[] = [];
  opinion: VerifierOpinion | null = null;
  attempts = 0;
  checkRewrites = 0;
  readonly monitorFlags: string[] = [];
  readonly overrides: Override[] = [];
  readonly interfaceChanges: string[] = [];
  repairStop: RepairStop | null = null;

  /** Keeps assumptions declared by a stage, and the questions among them. */
  assume(assumptions: string[]): void {
    this.assumptions.push(...assumptions);
    this.note(assumptions);
  }

  /** Keeps any `NEEDS HUMAN:` line in what a stage said (a report, findings, a final message). */
  note(lines: Iterable<string | null | undefined>): void {
    this.raise(openQuestions([...lines].filter((l): l is string => typeof l === 'string')));
  }

  /** Keeps questions already extracted elsewhere (a child's open questions travel up as they are). */
  raise(questions: string[]): void {
    for (const q of questions) if (!this.asked.includes(q)) this.asked.push(q);
  }

  /** An independent copy: each arm's merge of one built node starts from what its planning learnt. */
  copy(): NodeRecord {
    const twin = new NodeRecord();
    twin.assumptions.push(...this.assumptions);
    twin.raise(this.asked);
    twin.checks = [...this.checks];
    twin.checkResults = [...this.checkResults];
    twin.opinion = this.opinion;
    twin.attempts = this.attempts;
    twin.checkRewrites = this.checkRewrites;
    twin.monitorFlags.push(...this.monitorFlags);
    twin.overrides.push(...this.overrides);
    twin.interfaceChanges.push(...this.interfaceChanges);
    twin.repairStop = this.repairStop;
    return twin;
  }

  /** Every open question, in the order raised, each once. */
  get questions(): string[] {
    return [...this.asked];
  }
}
