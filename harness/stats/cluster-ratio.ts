import { mean, sampleVariance, sum } from 'simple-statistics';

/**
 * The ratio estimator over clusters, with its linearized (Taylor) standard error.
 *
 * A cluster is one cell's leaves at one level: `claimed` resolved claims from delivered leaves,
 * `surviving` of them passing in the graded root tree. The estimate is Σ surviving / Σ claimed,
 * a claims-weighted mean over clusters, because the per-cell denominators vary with the random
 * tree shape. It targets the ratio of expected totals E[surviving]/E[claimed], which is the
 * quantity the simulated population's closed form gives. Its standard error comes from the
 * clusters' influence values e_i = (surviving_i − R̂·claimed_i) / mean(claimed):
 * SE² = var(e) / m over the m clusters (Cochran, Sampling Techniques, 3rd ed., §6.4, without
 * finite-population correction). The leaves inside a cluster are never treated as independent.
 */

export interface Cluster {
  surviving: number;
  claimed: number;
}

export interface LinearizedEstimate {
  estimate: number;
  /** One influence value per cluster, in input order; they sum to 0. */
  influence: number[];
}

/** Σ surviving / Σ claimed with each cluster's influence value. Needs Σ claimed > 0. */
export function ratioEstimate(clusters: readonly Cluster[]): LinearizedEstimate {
  const claimed = clusters.map((c) => c.claimed);
  const total = sum(claimed);
  if (!(total > 0)) throw new RangeError('a ratio estimate needs at least one claim');
  const estimate = sum(clusters.map((c) => c.surviving)) / total;
  const meanClaimed = mean(claimed);
  return { estimate, influence: clusters.map((c) => (c.surviving - estimate * c.claimed) / meanClaimed) };
}

/**
 * The cluster standard error of a linearized estimate: sqrt(var(e)/m). Needs m >= 2 (one
 * cluster says nothing about the spread between clusters).
 */
export function clusterStandardError(influence: readonly number[]): number {
  if (influence.length < 2) throw new RangeError(`a cluster standard error needs at least 2 clusters, got ${influence.length}`);
  return Math.sqrt(sampleVariance([...influence]) / influence.length);
}

/**
 * R̂_gated − R̂_ungated over the same pairs. Each pair's influence is the difference of its two
 * arms' influence values, so the covariance the pairing creates enters the standard error.
 * Under shared pairing both arms have the same claims, and this is
 * (Σ gated surviving − Σ ungated surviving) / Σ claimed with influence
 * (gated_i − ungated_i − D̂·claimed_i) / mean(claimed).
 */
export function pairedDifference(pairs: ReadonlyArray<{ gated: Cluster; ungated: Cluster }>): LinearizedEstimate {
  const gated = ratioEstimate(pairs.map((p) => p.gated));
  const ungated = ratioEstimate(pairs.map((p) => p.ungated));
  return { estimate: gated.estimate - ungated.estimate, influence: gated.influence.map((e, i) => e - ungated.influence[i]!) };
}
