import { sum } from 'simple-statistics';

/**
 * Pooling per-cap estimates into one: a stratified estimate Σ W_c·θ̂_c with fixed weights, its
 * variance Σ W_c²·SE_c², and Satterthwaite's degrees of freedom
 * ν = (Σ W_c²SE_c²)² / Σ (W_c²SE_c²)² / (m_c − 1)
 * (Satterthwaite 1946; the Welch–Satterthwaite form), which lies between the smallest m_c − 1
 * and Σ(m_c − 1).
 */

export interface StratumEstimate {
  estimate: number;
  standardError: number;
  /** Clusters behind the stratum's estimate: m_c >= 2. */
  pairs: number;
}

export interface Stratified {
  estimate: number;
  standardError: number;
  df: number;
  /** W_c, in input order; they sum to 1. */
  weights: number[];
}

/**
 * Weights proportional to each stratum's pairs: the pooled figure is then an average over
 * pairs, the unit of the design, whatever cap they were recorded at.
 */
export function stratify(strata: readonly StratumEstimate[]): Stratified {
  if (strata.length === 0) throw new RangeError('stratify needs at least one stratum');
  for (const s of strata) if (!(s.pairs >= 2)) throw new RangeError(`every stratum needs at least 2 pairs for a standard error, got ${s.pairs}`);
  const totalPairs = sum(strata.map((s) => s.pairs));
  const weights = strata.map((s) => s.pairs / totalPairs);
  const parts = strata.map((s, i) => weights[i]! ** 2 * s.standardError ** 2);
  const variance = sum(parts);
  const denominator = sum(parts.map((part, i) => part ** 2 / (strata[i]!.pairs - 1)));
  // With no spread in any stratum the interval has zero width whatever ν is; take the
  // largest ν the formula can give rather than 0/0.
  const df = denominator > 0 ? variance ** 2 / denominator : sum(strata.map((s) => s.pairs - 1));
  return { estimate: sum(strata.map((s, i) => weights[i]! * s.estimate)), standardError: Math.sqrt(variance), df, weights };
}
