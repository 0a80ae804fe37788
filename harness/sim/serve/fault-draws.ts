import { hash } from 'node:crypto';
import type { LatencyPlan } from './fault-plan.js';

/**
 * The random choices of a fault plan, as pure functions of the seed and the identity of one
 * try of one call: the call (its cell, session and how many messages it sends, so each turn of
 * a session is its own call) and how many times the server had already seen that same call.
 * Never of arrival order: concurrent sessions interleave differently on every run, and a draw
 * keyed by order would give the same sweep different faults each time. A retried call is seen
 * once more, so it draws anew.
 */
export interface TryIdentity {
  /** The call key, `<cell>/<session>#<message count>` (see callKey). */
  call: string;
  /** Times the server saw this call before this try (0 on the first). */
  seen: number;
}

/**
 * The key of one call: its cell, its session and the number of messages it sends. A session
 * sends one more message on every turn, so the count tells its turns apart; the cell, because
 * session ids (`root/planner/1`) repeat from cell to cell. The cell has no `/` and the count is
 * digits, so the text splits back unambiguously.
 */
export function callKey(cell: string, session: string, messages: number): string {
  return `${cell}/${session}#${messages}`;
}

const TWO_POW_53 = 2 ** 53;

/** A uniform in [0, 1) for one named choice of one try: the first 53 bits of sha256 of the canonical key. */
export function uniform(seed: number, choice: string, t: TryIdentity): number {
  const digest = hash('sha256', JSON.stringify([seed, choice, t.call, t.seen]), 'buffer');
  return ((digest.readUInt32BE(0) >>> 11) * 2 ** 32 + digest.readUInt32BE(4)) / TWO_POW_53;
}

/** The delay of one try, in milliseconds, drawn from the plan's distribution. */
export function latencyMs(plan: LatencyPlan | undefined, seed: number, t: TryIdentity): number {
  if (!plan) return 0;
  switch (plan.distribution) {
    case 'fixed':
      return plan.ms ?? 0;
    case 'uniform': {
      const [min, max] = [plan.min_ms ?? 0, plan.max_ms ?? 0];
      return min + (max - min) * uniform(seed, 'latency', t);
    }
    case 'lognormal': {
      // Box-Muller from two independent uniforms; 1 - u keeps the logarithm finite.
      const z = Math.sqrt(-2 * Math.log(1 - uniform(seed, 'latency', t))) * Math.cos(2 * Math.PI * uniform(seed, 'latency-angle', t));
      return (plan.median_ms ?? 0) * Math.exp((plan.sigma ?? 0) * z);
    }
  }
}
