/**
 * Φ(x) with full relative accuracy in both tails. jstat's normal CDF is 0.5·(1 + erf(x/√2)),
 * which cancels to 0 below about x = −8 and keeps only ~4 digits at −7, where an
 * O'Brien–Fleming design's first look spends its 1e-12. The Chebyshev expansion of erfc here
 * is the one jstat uses inside erf (Numerical Recipes 3rd ed., §6.2.2: relative error ~1e-16),
 * evaluated without the cancellation.
 */
const COF = [
  -1.3026537197817094, 6.4196979235649026e-1, 1.9476473204185836e-2, -9.561514786808631e-3, -9.46595344482036e-4, 3.66839497852761e-4, 4.2523324806907e-5,
  -2.0278578112534e-5, -1.624290004647e-6, 1.30365583558e-6, 1.5626441722e-8, -8.5238095915e-8, 6.529054439e-9, 5.059343495e-9, -9.91364156e-10,
  -2.27365122e-10, 9.6467911e-11, 2.394038e-12, -6.886027e-12, 8.94487e-13, 3.13092e-13, -1.12708e-13, 3.81e-16, 7.106e-15, -1.523e-15, -9.4e-17,
  1.21e-16, -2.8e-17,
];

/** erfc(x) for x >= 0. */
function erfcNonNegative(x: number): number {
  const t = 2 / (2 + x);
  const ty = 4 * t - 2;
  let d = 0;
  let dd = 0;
  for (let j = COF.length - 1; j > 0; j--) {
    const tmp = d;
    d = ty * d - dd + COF[j]!;
    dd = tmp;
  }
  return t * Math.exp(-x * x + 0.5 * (COF[0]! + ty * d) - dd);
}

/** The standard normal CDF, accurate in relative terms far into the lower tail. */
export function normalCdfAccurate(x: number): number {
  if (x === Infinity) return 1;
  if (x === -Infinity) return 0;
  return x < 0 ? 0.5 * erfcNonNegative(-x / Math.SQRT2) : 1 - 0.5 * erfcNonNegative(x / Math.SQRT2);
}
