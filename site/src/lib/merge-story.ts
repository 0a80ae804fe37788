import type { EngineEvent } from '../../../harness/run-file-schemas.js';

/**
 * A merge's repair loop told in words, from its recorded events: each attempt's review, what the
 * loop did with it (took it, repaired, or, in the ungated arm, repaired regardless, since a
 * self-review's verdict is never used), and why the loop stopped, with the merge that stood.
 * Pure: the attempts as node-tree.ts read them (merge_review and repair_round events).
 */

/** One attempt as the story needs it (a MergeReviewView's fields). */
export interface StoryAttempt {
  attempt: number;
  kind: 'independent' | 'self';
  model: string | null;
  accept: boolean | null;
  findings: readonly string[];
  /** The loop's round for this attempt (repair_round), when recorded. */
  repair: { accepted: boolean; stop: string | null } | null;
}

/** What the loop's stop means, in words (engine/court/repair-loop.ts's RepairStop). */
const STOPS: Record<string, string> = {
  accept: 'the merge was accepted',
  max_attempts: 'it had used every attempt it was allowed',
  budget: 'the budget ran out',
  no_progress: 'a repair made no progress',
  settled: 'the node was settled without a review (its checks could not decide it)',
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What the review said: the word a reviewer's verdict reads as. */
export function reviewWord(accept: boolean | null): 'accepted' | 'rejected' | 'escalated' {
  return accept === true ? 'accepted' : accept === false ? 'rejected' : 'escalated';
}

/** What the loop did after an attempt's review: took it, repaired, or stopped (and why). */
export function loopStep(a: StoryAttempt, last: boolean): string {
  const notTaken = a.kind === 'self' ? 'a self-review\'s verdict is not used, so the loop did not take it; ' : '';
  if (a.repair?.accepted) return 'the loop accepted the merge';
  if (a.repair?.stop) return `${notTaken}the loop stopped here (${a.repair.stop}) and this merge stood`;
  if (a.repair || !last) return `${notTaken}the merger repaired it`;
  return `${notTaken}no later round was recorded`;
}

/** One attempt in a sentence: the review's verdict, by whom, and what the loop did next. */
export function attemptSentence(a: StoryAttempt, last: boolean): string {
  const by = a.kind === 'independent' ? `the independent reviewer${a.model ? ` ${a.model}` : ''}` : `the merger's own self-review${a.model ? ` (${a.model})` : ''}`;
  const findings = a.findings.length > 0 ? ` with ${plural(a.findings.length, 'finding')}` : '';
  const said = a.accept === null ? 'no eligible reviewer judged it (escalated)' : `${reviewWord(a.accept)} by ${by}${findings}`;
  return `Attempt ${a.attempt}: ${said}; ${loopStep(a, last)}.`;
}

/**
 * The loop in one line, then why it stopped: "Rejected, repaired, rejected. The loop stopped
 * because it had used every attempt it was allowed (max_attempts: 2): the rejected merge of
 * attempt 2 stood." Null when no attempt was recorded.
 */
export function mergeStory(attempts: readonly StoryAttempt[], repairStop: string | null): string | null {
  if (attempts.length === 0) return null;
  const steps: string[] = [];
  attempts.forEach((a, i) => {
    if (i > 0) steps.push('repaired');
    steps.push(a.kind === 'self' ? `self-review ${reviewWord(a.accept)} (not used)` : reviewWord(a.accept));
  });
  const final = attempts.at(-1)!;
  const stop = repairStop ?? final.repair?.stop ?? null;
  const taken = final.repair?.accepted === true;
  const stood = taken
    ? `the merge of attempt ${final.attempt} was accepted and stood`
    : final.kind === 'self'
      ? `the merge of attempt ${final.attempt} stood, never judged by anyone independent`
      : `the ${reviewWord(final.accept)} merge of attempt ${final.attempt} stood`;
  const why = stop ? `The loop stopped because ${STOPS[stop] ?? stop}` : 'The loop recorded no stop';
  const cap = stop === 'max_attempts' ? ` (max_attempts: ${attempts.length})` : '';
  return `${capitalise(steps.join(', '))}. ${why}${cap}: ${stood}.`;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A review or self-review session's judgement, shown as fields at the top of its page. */
export interface ReviewFields {
  verdict: 'accepted' | 'rejected' | 'escalated';
  kind: 'independent' | 'self';
  findings: string[];
  /** Whether the node's verdict was taken from it (never a self-review's). */
  verdictUsed: boolean;
  /** What the loop did after it, in a sentence (attemptSentence). */
  loop: string;
}


/** The roles whose sessions review a merge, and the kind of review each is. */
const REVIEW_ROLES: Record<string, 'independent' | 'self'> = { reviewer: 'independent', self_reviewer: 'self' };

/**
 * The judgement a session gave, read from its cell's events (its merge_review and the loop's
 * repair_round of the same node and attempt); null for a session that reviews no merge.
 */
export function reviewFields(events: readonly EngineEvent[], session: { nodeId: string; role: string; attempt: number }): ReviewFields | null {
  const kind = REVIEW_ROLES[session.role];
  if (!kind) return null;
  const at = (e: { nodeId: string; attempt: number }) => e.nodeId === session.nodeId && e.attempt === session.attempt;
  const review = events.find((e): e is Extract<EngineEvent, { type: 'merge_review' }> => e.type === 'merge_review' && at(e) && e.kind === kind);
  if (!review) return null;
  const round = events.find((e): e is Extract<EngineEvent, { type: 'repair_round' }> => e.type === 'repair_round' && at(e));
  const attempt: StoryAttempt = {
    attempt: session.attempt, kind, model: review.model, accept: review.accept, findings: review.findings,
    repair: round ? { accepted: round.accepted, stop: round.stop } : null,
  };
  return { verdict: reviewWord(attempt.accept), kind, findings: [...review.findings], verdictUsed: review.verdictUsed, loop: attemptSentence(attempt, round?.stop != null) };
}
