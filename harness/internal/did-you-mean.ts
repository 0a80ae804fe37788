/** Edit distance (insert, delete, substitute, and swap of two neighbours), so `depht` finds `depth`. */
function distance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate a typo most likely meant, or undefined when none is close enough to be a
 * useful guess (a wrong suggestion costs the reader more than none).
 */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: { candidate: string; score: number } | undefined;
  const allowedFor = (candidate: string) => Math.max(2, Math.floor(candidate.length / 3));
  for (const candidate of candidates) {
    // The distance is at least the difference in length, so a far longer word (a pasted
    // paragraph as a key) is skipped without building its table.
    if (Math.abs(lower.length - candidate.length) > allowedFor(candidate)) continue;
    const score = distance(lower, candidate.toLowerCase());
    if (!best || score < best.score) best = { candidate, score };
  }
  if (!best) return undefined;
  return best.score <= allowedFor(best.candidate) ? best.candidate : undefined;
}
