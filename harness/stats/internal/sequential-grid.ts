import { normalCdfAccurate as normalCdf } from './normal-tail.js';

/**
 * The recursive numerical integration of Armitage, McPherson & Rowe (1969), on the grid of
 * Jennison & Turnbull (2000, ch. 19): the score S_k = Z_k·√t_k of a group-sequential design is
 * a Brownian motion with drift θ (the z statistic's mean at full information), so S_k given
 * S_{k−1} is normal with mean S_{k−1} + θ·Δt and variance Δt, independent of the past. The
 * sub-density of S_k on the paths that have not stopped is carried on a Simpson grid over the
 * continuation interval; exit probabilities past a boundary are then closed-form sums of Φ.
 *
 * Accuracy: the grid step is a fixed share of the narrowest kernel it meets (√Δt of the
 * increments on either side) and of the stage's own spread, and the tails beyond 9 standard
 * deviations of the unstopped path (below 1e-18) are cut. Against an exact bivariate normal
 * (tests/harness/stats/group-sequential.test.ts) boundaries agree to better than 1e-5.
 */

/** The unstopped sub-density of S at one look: grid points and (Simpson weight × density). */
export interface Stage {
  t: number;
  s: Float64Array;
  mass: Float64Array;
}

const STEPS_PER_SD = 24;
const TAIL_SD = 9;
const INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);

/**
 * Probability, on paths not stopped before this look, that Z at fraction t lands at or above
 * `upper` (on the z scale), and at or below `lower`. `prev` null means this is the first look.
 */
export function exitProbabilities(prev: Stage | null, t: number, theta: number, upper: number, lower: number): { up: number; down: number } {
  const root = Math.sqrt(t);
  if (prev === null) return { up: normalCdf(theta * root - upper), down: normalCdf(lower - theta * root) };
  const dt = t - prev.t;
  const sdt = Math.sqrt(dt);
  const su = upper * root;
  const sl = lower * root;
  let up = 0;
  let down = 0;
  for (let i = 0; i < prev.s.length; i++) {
    const mean = prev.s[i]! + theta * dt;
    up += prev.mass[i]! * normalCdf((mean - su) / sdt);
    down += prev.mass[i]! * normalCdf((sl - mean) / sdt);
  }
  return { up, down };
}

/**
 * The unstopped sub-density at fraction t, for paths that continue between `lower` and
 * `upper` (z scale) here. `nextDt` is the increment to the next look (0 when there is none),
 * which bounds the grid step so the next convolution is resolved.
 */
export function nextStage(prev: Stage | null, t: number, theta: number, lower: number, upper: number, nextDt: number): Stage {
  const root = Math.sqrt(t);
  const dt = prev === null ? t : t - prev.t;
  const centre = theta * t;
  const lo = Math.max(lower * root, centre - TAIL_SD * root);
  const hi = Math.min(upper * root, centre + TAIL_SD * root);
  if (!(hi > lo)) return { t, s: new Float64Array(0), mass: new Float64Array(0) };
  const scales = [Math.sqrt(dt), root];
  if (nextDt > 0) scales.push(Math.sqrt(nextDt));
  const step = Math.min(...scales) / STEPS_PER_SD;
  const intervals = Math.max(2, 2 * Math.ceil((hi - lo) / (2 * step)));
  const h = (hi - lo) / intervals;
  const s = new Float64Array(intervals + 1);
  const mass = new Float64Array(intervals + 1);
  const sdt = Math.sqrt(dt);
  for (let j = 0; j <= intervals; j++) {
    const x = lo + j * h;
    s[j] = x;
    const simpson = ((j === 0 || j === intervals ? 1 : j % 2 === 1 ? 4 : 2) * h) / 3;
    let density = 0;
    if (prev === null) {
      const u = (x - centre) / sdt;
      density = (INV_SQRT_2PI / sdt) * Math.exp(-0.5 * u * u);
    } else {
      for (let i = 0; i < prev.s.length; i++) {
        const u = (x - prev.s[i]! - theta * dt) / sdt;
        density += prev.mass[i]! * Math.exp(-0.5 * u * u);
      }
      density *= INV_SQRT_2PI / sdt;
    }
    mass[j] = simpson * density;
  }
  return { t, s, mass };
}

/** Bisection for a decreasing function's crossing of `target` on [lo, hi], to 1e-10. */
export function solveDecreasing(f: (x: number) => number, target: number, lo: number, hi: number): number {
  if (f(lo) <= target) return lo;
  if (f(hi) >= target) return hi;
  for (let i = 0; i < 200 && hi - lo > 1e-10; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
