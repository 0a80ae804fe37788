import type { Check, CheckResult } from '../base/check.js';
import type { GateOutcome, Override, VerifierOpinion } from '../court/gate.js';

/** How a stage that does work ended; solve.ts turns it into a NodeResult. */
export interface StageOutcome {
  gate: GateOutcome;
  assumptions: string[];
  openQuestions: string[];
  checks: Check[];
  checkResults: CheckResult[];
  opinion: VerifierOpinion | null;
  attempts: number;
  checkRewrites: number;
  monitorFlags: string[];
  overrides: Override[];
  interfaceChanges: string[];
}
