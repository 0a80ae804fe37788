import { hash } from 'node:crypto';
import type { Arm } from '../manifest/manifest.js';

/** Who makes a draw: the session role whose simulated reply the decision shapes. */
export type SimRole = 'planner' | 'executor' | 'merger' | 'reviewer';

/**
 * The identity of one random decision of the SIMULATED population. Shared-phase decisions
 * (planning, leaves) leave `arm` out, so both arms of a pair see the same draw; merge-phase
 * decisions (seams, reviews, repairs) carry it, so the arms' merges draw independently.
 */
export interface DrawKey {
  cap: number;
  repetition: number;
  /** Absent for shared-phase decisions. */
  arm?: Arm;
  /** Node path: `root`, `root.0`, `root.0.2`. */
  node: string;
  role: SimRole;
  /** Session attempt, 1-based. */
  attempt: number;
  /** The decision's name, e.g. `defect`, `seam-target`, `find`. */
  decision: string;
  /** Requirement id or child index the decision is about, when there is one. */
  item?: string | number;
}

/** The key without the cell coordinates: what a decision function names; a DrawSource binds the rest. */
export type DecisionKey = Omit<DrawKey, 'cap' | 'repetition'>;

/** A source of uniforms in [0, 1) for decisions of one cell (seed, cap and repetition bound). */
export type DrawSource = (key: DecisionKey) => number;

/** One cell of a sweep: the coordinates every draw of its pair is keyed by. */
export interface SimCell {
  seed: number;
  cap: number;
  repetition: number;
}

/** The canonical text of a key; every component is always present, so no two keys collide. */
export function drawKeyText(seed: number, key: DrawKey): string {
  return JSON.stringify([seed, key.cap, key.repetition, key.arm ?? null, key.node, key.role, key.attempt, key.decision, key.item ?? null]);
}

const TWO_POW_53 = 2 ** 53;

/**
 * The uniform in [0, 1) of one decision: the first 53 bits of sha256 of the canonical key.
 * A pure function of the identity, never of call order, timing or process: concurrent,
 * resumed and re-ordered runs make the very same draw.
 */
export function draw(seed: number, key: DrawKey): number {
  const digest = hash('sha256', drawKeyText(seed, key), 'buffer');
  // 21 high bits and 32 low bits make 53 exactly representable bits.
  return ((digest.readUInt32BE(0) >>> 11) * 2 ** 32 + digest.readUInt32BE(4)) / TWO_POW_53;
}

/** The identity-keyed draws of one cell: what the sim ModelClient and the pure sampler use. */
export function identityDraws(cell: SimCell): DrawSource {
  return (key) => draw(cell.seed, { ...key, cap: cell.cap, repetition: cell.repetition });
}

/**
 * A fast stream of uniforms that ignores the key (sfc32). Only for Monte Carlo checks of the
 * generative model, where order-independence does not matter and sha256 per draw would be the
 * whole cost; never for a sweep.
 */
export function streamDraws(seed: number): DrawSource {
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 15; i++) next();
  return () => ((next() >>> 11) * 2 ** 32 + next()) / TWO_POW_53;
}
