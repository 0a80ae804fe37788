/**
 * The part of jstat (1.9.x, CommonJS, ships no types) that harness/stats uses. Declared here
 * rather than installed from DefinitelyTyped because nothing is published there for it, and
 * naming only what is used keeps the surface reviewable.
 */
declare module 'jstat' {
  interface JStat {
    studentt: {
      /** Quantile of Student's t with `dof` degrees of freedom (inverse regularized incomplete beta). */
      inv(p: number, dof: number): number;
    };
    normal: {
      cdf(x: number, mean: number, sd: number): number;
      inv(p: number, mean: number, sd: number): number;
    };
    /** ln Γ(x) for x > 0 (Lanczos). */
    gammaln(x: number): number;
  }
  const jstat: { jStat: JStat };
  export default jstat;
}
