import type { Arm } from '../../manifest/manifest.js';

const pmfMemo = new Map<string, Float64Array>();

/** Binomial(n, p) probabilities of 0..n, exact up to rounding (n is at most the requirement count). */
export function binomialPmf(n: number, p: number): Float64Array {
  const key = `${n},${p}`;
  let pmf = pmfMemo.get(key);
  if (!pmf) {
    pmf = new Float64Array(n + 1);
    let choose = 1;
    for (let k = 0; k <= n; k++) {
      pmf[k] = choose * p ** k * (1 - p) ** (n - k);
      choose = (choose * (n - k)) / (k + 1);
    }
    pmfMemo.set(key, pmf);
  }
  return pmf;
}

function popcount(x: number): number {
  let c = 0;
  for (let v = x; v; v &= v - 1) c++;
  return c;
}

/**
 * A (sub-)probability distribution over a subtree's defect state: presence bits of the tracked
 * requirements (bit j = tracked requirement j has a defect) and the count of other defects.
 */
export class JointDist {
  private constructor(
    readonly trackedCount: number,
    /** Largest count of untracked defects representable (all requirements). */
    readonly maxCount: number,
    readonly data: Float64Array,
  ) {}

  private get stride(): number {
    return this.maxCount + 1;
  }

  static zero(trackedCount: number, maxCount: number): JointDist {
    return new JointDist(trackedCount, maxCount, new Float64Array((1 << trackedCount) * (maxCount + 1)));
  }

  /** Certainty of no defect at all (the neutral element of convolve). */
  static empty(trackedCount: number, maxCount: number): JointDist {
    const d = JointDist.zero(trackedCount, maxCount);
    d.data[0] = 1;
    return d;
  }

  /** A leaf: each tracked requirement in it and each of its `others` defective independently with p. */
  static leaf(trackedCount: number, maxCount: number, bits: readonly number[], others: number, p: number): JointDist {
    const d = JointDist.zero(trackedCount, maxCount);
    const pmf = binomialPmf(others, p);
    const all = bits.reduce((mask, j) => mask | (1 << j), 0);
    for (let sub = all; ; sub = (sub - 1) & all) {
      const set = popcount(sub);
      const w = p ** set * (1 - p) ** (bits.length - set);
      for (let m = 0; m <= others; m++) d.data[sub * d.stride + m] = w * pmf[m]!;
      if (sub === 0) break;
    }
    return d;
  }

  total(): number {
    let s = 0;
    for (const v of this.data) s += v;
    return s;
  }

  /** Sum over states of mass x f(presence bits). */
  expect(f: (bits: number) => number): number {
    let s = 0;
    for (let bits = 0; bits < 1 << this.trackedCount; bits++) {
      let mass = 0;
      for (let m = 0; m <= this.maxCount; m++) mass += this.data[bits * this.stride + m]!;
      if (mass !== 0) s += mass * f(bits);
    }
    return s;
  }

  addScaled(other: JointDist, weight: number): void {
    for (let i = 0; i < this.data.length; i++) this.data[i]! += weight * other.data[i]!;
  }

  /**
   * One child's seam: with probability pS one of its `size` requirements, chosen uniformly,
   * becomes defective unless it already is. `bits` are the tracked requirements in the child,
   * `others` the count of its untracked ones.
   */
  seam(bits: readonly number[], others: number, size: number, pS: number): JointDist {
    const out = JointDist.zero(this.trackedCount, this.maxCount);
    const s = this.stride;
    for (let b = 0; b < 1 << this.trackedCount; b++) {
      for (let m = 0; m <= this.maxCount; m++) {
        const w = this.data[b * s + m]!;
        if (w === 0) continue;
        out.data[b * s + m]! += (1 - pS) * w;
        const per = (pS * w) / size;
        for (const j of bits) out.data[(b | (1 << j)) * s + m]! += per;
        if (others - m > 0) out.data[b * s + m + 1]! += per * (others - m);
        out.data[b * s + m]! += per * m;
      }
    }
    return out;
  }

  /**
   * The collapse mode's planting: each of the tracked requirements `bits` and each of the
   * `others` untracked ones that is not already defective becomes defective with probability q.
   */
  plant(bits: readonly number[], others: number, q: number): JointDist {
    const out = JointDist.zero(this.trackedCount, this.maxCount);
    const s = this.stride;
    const all = bits.reduce((mask, j) => mask | (1 << j), 0);
    for (let b = 0; b < 1 << this.trackedCount; b++) {
      const absent = all & ~b;
      const absentCount = popcount(absent);
      for (let m = 0; m <= this.maxCount; m++) {
        const w = this.data[b * s + m]!;
        if (w === 0) continue;
        const pmf = binomialPmf(Math.max(0, others - m), q);
        for (let sub = absent; ; sub = (sub - 1) & absent) {
          const got = popcount(sub);
          const wb = w * q ** got * (1 - q) ** (absentCount - got);
          if (wb !== 0) for (let j = 0; j < pmf.length; j++) out.data[(b | sub) * s + m + j]! += wb * pmf[j]!;
          if (sub === 0) break;
        }
      }
    }
    return out;
  }

  /** The state of two disjoint subtrees together. */
  convolve(other: JointDist): JointDist {
    const out = JointDist.zero(this.trackedCount, this.maxCount);
    const s = this.stride;
    for (let b1 = 0; b1 < 1 << this.trackedCount; b1++) {
      for (let m1 = 0; m1 <= this.maxCount; m1++) {
        const w1 = this.data[b1 * s + m1]!;
        if (w1 === 0) continue;
        for (let b2 = 0; b2 < 1 << this.trackedCount; b2++) {
          for (let m2 = 0; m1 + m2 <= this.maxCount; m2++) {
            const w2 = other.data[b2 * s + m2]!;
            if (w2 !== 0) out.data[(b1 | b2) * s + m1 + m2]! += w1 * w2;
          }
        }
      }
    }
    return out;
  }

  /**
   * A merge loop of `attempts` attempts on the joint state: between consecutive attempts each
   * present defect is found with `recall` and then repaired with `repair`. Gated: a review
   * that finds nothing at all approves, freezing the whole state. Ungated: always goes on.
   */
  mergeLoop(arm: Arm, attempts: number, recall: number, repair: number): JointDist {
    const q = recall * repair;
    let active: JointDist = this;
    const stopped = JointDist.zero(this.trackedCount, this.maxCount);
    const s = this.stride;
    for (let step = 1; step < attempts; step++) {
      const next = active.removeEach(q);
      if (arm === 'gated') {
        // Nothing found leaves the state as it was; in the gated arm that mass stops here.
        for (let b = 0; b < 1 << this.trackedCount; b++) {
          const k = popcount(b);
          for (let m = 0; m <= this.maxCount; m++) {
            const w = active.data[b * s + m]!;
            if (w === 0) continue;
            const none = w * (1 - recall) ** (k + m);
            stopped.data[b * s + m]! += none;
            next.data[b * s + m]! -= none;
          }
        }
      }
      active = next;
    }
    const out = JointDist.zero(this.trackedCount, this.maxCount);
    out.addScaled(active, 1);
    out.addScaled(stopped, 1);
    return out;
  }

  /** Each present defect removed independently with probability q. */
  private removeEach(q: number): JointDist {
    const out = JointDist.zero(this.trackedCount, this.maxCount);
    const s = this.stride;
    for (let b = 0; b < 1 << this.trackedCount; b++) {
      const k = popcount(b);
      for (let m = 0; m <= this.maxCount; m++) {
        const w = this.data[b * s + m]!;
        if (w === 0) continue;
        const pmf = binomialPmf(m, q);
        for (let sub = b; ; sub = (sub - 1) & b) {
          // sub: the tracked defects that stay.
          const kept = popcount(sub);
          const wb = w * (1 - q) ** kept * q ** (k - kept);
          if (wb !== 0) for (let j = 0; j <= m; j++) out.data[sub * s + m - j]! += wb * pmf[j]!;
          if (sub === 0) break;
        }
      }
    }
    return out;
  }
}
