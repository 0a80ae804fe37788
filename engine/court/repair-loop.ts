/** One attempt and the critic's verdict on it. */
export interface RepairRound<T> {
  value: T;
  /** Deterministic score (e.g. checks passing); two equal scores in a row mean no progress. */
  score: number;
  accepted: boolean;
  /** A verdict a retry cannot change (a question for a person, a weak check set). */
  settled?: boolean;
  /** Whether the critic was a different model and context than the attempt. A same-model pass is a discipline pass only. */
  independent: boolean;
  /** What to prepend to the next attempt. */
  findings: string[];
}

export type RepairStop = 'accept' | 'max_attempts' | 'budget' | 'no_progress' | 'settled';

export interface RepairLoopOptions<T> {
  /** Attempts in all, first included. Held equal across arms of an experiment. */
  maxAttempts: number;
  attempt: (index: number, findings: string[]) => Promise<RepairRound<T>>;
  /** False when no further attempt is affordable. */
  budgetLeft: () => boolean;
  onRound?: (index: number, round: RepairRound<T>, stop: RepairStop | null) => void;
  /**
   * Stop when two consecutive attempts score the same. Default true. A merge loop turns it off:
   * its attempts are fixed per arm, and a score of seam checks says nothing of a review's findings.
   */
  stopOnNoProgress?: boolean;
}

/**
 * attempt -> critic verdict -> conditional re-attempt. It stops at the first of: the critic
 * accepts, the attempts run out, the budget is spent, or two consecutive attempts score the
 * same (further rounds cannot help). There is no open-ended branch.
 */
export async function repairLoop<T>(o: RepairLoopOptions<T>): Promise<{ final: RepairRound<T>; attempts: number; stop: RepairStop }> {
  let previous: RepairRound<T> | null = null;
  let findings: string[] = [];
  for (let i = 1; ; i++) {
    const round = await o.attempt(i, findings);
    const stop: RepairStop | null = round.accepted
      ? 'accept'
      : round.settled
        ? 'settled'
        : i >= o.maxAttempts
          ? 'max_attempts'
          : !o.budgetLeft()
            ? 'budget'
            : (o.stopOnNoProgress ?? true) && previous && previous.score === round.score
              ? 'no_progress'
              : null;
    o.onRound?.(i, round, stop);
    if (stop) return { final: round, attempts: i, stop };
    previous = round;
    findings = round.findings;
  }
}
