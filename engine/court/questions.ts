/**
 * Questions only a person can settle, declared as `NEEDS HUMAN: <question>`. A node holding
 * one may never be DONE, whichever stage raised it: a plan, a check write or rewrite, a
 * seam check, a worker's or merger's report, a verifier's finding.
 */

const NEEDS_HUMAN = /^\s*(?:[-*]\s*)?NEEDS\s+HUMAN\s*:\s*(.*)$/i;
const NOTHING = /^(none|no|n\/?a|nothing|not needed|nil|-|no questions?)\.?$/i;

/**
 * The open questions among `lines` (assumptions, findings, or lines of a report). Models
 * write "NEEDS HUMAN: none" to mean there are none; taking that literally would block a
 * good node, so it is filtered, not obeyed.
 */
export function openQuestions(lines: Iterable<string>): string[] {
  const out: string[] = [];
  for (const line of lines) {
    for (const part of line.split('\n')) {
      const m = NEEDS_HUMAN.exec(part);
      if (!m) continue;
      const q = m[1]!.trim();
      if (q && !NOTHING.test(q)) out.push(q);
    }
  }
  return out;
}
