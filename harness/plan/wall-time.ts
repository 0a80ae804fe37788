import { z } from 'zod';
import type { ConcurrencyPlan } from '../manifest/concurrency.js';

/**
 * The wall-time forecast `harness plan` and `plan --from runs/NAME` print beside sessions and
 * dollars. Pure: what each pair's sessions ask of its provider in, the time the sweep needs out.
 *
 * Every constraint gives a floor on the wall time, and the largest floor binds:
 * - **requests**: a provider key's calls ÷ its declared `rate_limit.rpm`;
 * - **tokens**: its tokens (prompt + completion) ÷ its declared `rate_limit.tpm`;
 * - **latency**: under adaptive bounds, at most `max` calls in flight per provider key, so its
 *   calls × seconds per call ÷ `max`;
 * - **sessions**: under a fixed concurrency N, N sessions in flight across the sweep, so all
 *   sessions × seconds per session ÷ N;
 * - **docker**: every session holds a sandbox, so sessions × seconds per session ÷ the declared
 *   Docker hosts' capacity.
 * A floor that cannot be computed (no latency declared or measured) is named, and the forecast
 * is then only a lower bound; with no floor at all it says it cannot forecast, never guesses.
 */

/**
 * Calls a session makes when no run has measured it. An ASSUMPTION, printed beside every figure
 * that uses it and replaced by the measured count under `plan --from`: a leaf's court opens 8
 * sessions (checker, worker, meta-verifier, verifier, 4 drift judges), of which the worker runs
 * a tool loop of a few dozen turns and the others one call or a handful, so about 6 on average.
 */
export const ASSUMED_CALLS_PER_SESSION = 6;

const Figure = z.number().nonnegative();
/** Where a figure came from: a provider entry, a recorded run, or the plan's own assumption. */
const Source = z.enum(['declared', 'measured', 'assumed']);
const Sourced = z.object({ value: Figure, source: Source });

/** A provider key (base URL and key variable): what limits all the pairs it serves together. */
export const ProviderKey = z.object({
  /** Identity: pairs with the same id share the limits. */
  id: z.string(),
  /** How the report names it: the provider entry's name(s), e.g. `gateway`. */
  name: z.string(),
  rpm: z.number().positive().optional(),
  tpm: z.number().positive().optional(),
});
export type ProviderKey = z.infer<typeof ProviderKey>;

/** What one pair's sessions ask of its provider. */
export const PairLoad = z.object({
  pair: z.enum(['executor', 'reviewer']),
  sessions: Figure,
  callsPerSession: Sourced,
  /** Prompt + completion tokens per call (`assumed`: a session at its token ceiling, as the bill prices it). */
  tokensPerCall: Sourced,
  /** Seconds from sending a call to its whole reply. Absent: neither declared nor measured. */
  latencyS: Sourced.optional(),
  /** Seconds a session holds its slot, tools included (`measured`); absent: calls × latency. */
  sessionS: Sourced.optional(),
  provider: ProviderKey,
});
export type PairLoad = z.infer<typeof PairLoad>;

export const Constraint = z.object({
  kind: z.enum(['requests', 'tokens', 'latency', 'sessions', 'docker']),
  /** The provider entry's name, or `sweep` / `Docker hosts`. */
  where: z.string(),
  /** Requests or tokens per minute; calls, sessions or sandboxes in flight. */
  limit: Figure,
  /** What is divided by the limit: calls, tokens, call-seconds or session-seconds. */
  load: Figure,
  /** The floor it puts on the wall time. */
  seconds: Figure,
  /** Seconds per call (latency) or per session (sessions, docker), for the text. */
  per: Figure.optional(),
});
export type Constraint = z.infer<typeof Constraint>;

export const WallTime = z.discriminatedUnion('status', [
  z.object({
    /** `lower_bound`: a floor could not be computed (`missing` says which); the time may be longer. */
    status: z.enum(['forecast', 'lower_bound']),
    sessions: Figure,
    seconds: Figure,
    bound: Constraint,
    /** The other floors, largest first: what they alone would allow. */
    others: z.array(Constraint),
    missing: z.array(z.string()),
    /** Under a fixed concurrency: sessions in flight on average to finish within 24 h. */
    inFlightForADay: Figure.optional(),
    /** When the projection exceeds max_sessions: the time at which the ceiling stops the sweep. */
    ceiling: z.object({ maxSessions: z.int().positive(), seconds: Figure }).optional(),
    basis: z.array(PairLoad),
  }),
  z.object({ status: z.literal('unknown'), why: z.string(), basis: z.array(PairLoad) }),
]);
export type WallTime = z.infer<typeof WallTime>;

export interface WallTimeInput {
  loads: readonly PairLoad[];
  concurrency: ConcurrencyPlan;
  /** Sandboxes the declared Docker hosts hold at once (docker_hosts' capacities). Default: not declared. */
  dockerCapacity?: number;
  /** The run's session ceiling: the forecast says when it would stop the sweep. Default: none. */
  maxSessions?: number;
}

const DAY_S = 86_400;

/** Seconds a session holds its slot: measured, else its calls × latency (tools' time unknown). */
export function sessionSeconds(load: PairLoad): number | undefined {
  if (load.sessionS) return load.sessionS.value;
  return load.latencyS ? load.callsPerSession.value * load.latencyS.value : undefined;
}

function byKey(loads: readonly PairLoad[]): Map<string, PairLoad[]> {
  const keys = new Map<string, PairLoad[]>();
  for (const load of loads) keys.set(load.provider.id, [...(keys.get(load.provider.id) ?? []), load]);
  return keys;
}

const sum = (loads: readonly PairLoad[], f: (l: PairLoad) => number) => loads.reduce((n, l) => n + f(l), 0);
const calls = (l: PairLoad) => l.sessions * l.callsPerSession.value;

/** The floors each provider key puts on the sweep: requests, tokens, and (adaptive) latency × calls in flight. */
function providerFloors(loads: readonly PairLoad[], concurrency: ConcurrencyPlan, missing: string[]): Constraint[] {
  const out: Constraint[] = [];
  for (const group of byKey(loads).values()) {
    const key = group[0]!.provider;
    const n = sum(group, calls);
    if (n === 0) continue;
    if (key.rpm) out.push({ kind: 'requests', where: key.name, limit: key.rpm, load: n, seconds: (n / key.rpm) * 60 });
    if (key.tpm) {
      const t = sum(group, (l) => calls(l) * l.tokensPerCall.value);
      out.push({ kind: 'tokens', where: key.name, limit: key.tpm, load: t, seconds: (t / key.tpm) * 60 });
    }
    if (concurrency.kind === 'adaptive') {
      if (group.every((l) => l.latencyS)) {
        const callSeconds = sum(group, (l) => calls(l) * l.latencyS!.value);
        out.push({ kind: 'latency', where: key.name, limit: concurrency.max, load: callSeconds, seconds: callSeconds / concurrency.max, per: callSeconds / n });
      } else missing.push(`latency at ${key.name} (declare latency_s, or plan --from a recorded run)`);
    }
  }
  return out;
}

/** The forecast: every floor, the largest binding; unknown when none can be computed. */
export function forecastWallTime(input: WallTimeInput): WallTime {
  const loads = input.loads.map((l) => PairLoad.parse(l));
  const sessions = sum(loads, (l) => l.sessions);
  if (sessions === 0) return { status: 'unknown', why: 'no sessions left to record', basis: loads };
  const missing: string[] = [];
  const floors = providerFloors(loads, input.concurrency, missing);
  const perSession = loads.map(sessionSeconds);
  const known = perSession.every((s) => s !== undefined);
  const sessionLoad = known ? loads.reduce((n, l, i) => n + l.sessions * perSession[i]!, 0) : undefined;
  const mean = sessionLoad === undefined ? undefined : sessionLoad / sessions;
  if (input.concurrency.kind === 'fixed') {
    if (sessionLoad !== undefined) floors.push({ kind: 'sessions', where: 'sweep', limit: input.concurrency.sessions, load: sessionLoad, seconds: sessionLoad / input.concurrency.sessions, per: mean! });
    else {
      // The in-process sim has no provider entry to declare a latency in: only a run can say.
      const where = [...new Set(loads.filter((_, i) => perSession[i] === undefined && loads[i]!.provider.id !== 'sim').map((l) => l.provider.name))];
      missing.push(`seconds a session takes (${where.length ? `declare latency_s for ${where.join(' and ')}, or ` : ''}plan --from a recorded run)`);
    }
  }
  if (input.dockerCapacity !== undefined && sessionLoad !== undefined) {
    floors.push({ kind: 'docker', where: 'Docker hosts', limit: input.dockerCapacity, load: sessionLoad, seconds: sessionLoad / input.dockerCapacity, per: mean! });
  }
  if (floors.length === 0) {
    return { status: 'unknown', why: `nothing declared or measured bounds it (no rate_limit; no ${missing.join('; no ')})`, basis: loads };
  }
  const sorted = [...floors].sort((a, b) => b.seconds - a.seconds);
  const bound = sorted[0]!;
  const ceiling = input.maxSessions !== undefined && input.maxSessions < sessions ? { maxSessions: input.maxSessions, seconds: (bound.seconds * input.maxSessions) / sessions } : undefined;
  return WallTime.parse({
    status: missing.length ? 'lower_bound' : 'forecast',
    sessions,
    seconds: bound.seconds,
    bound,
    others: sorted.slice(1),
    missing,
    ...(input.concurrency.kind === 'fixed' && sessionLoad !== undefined ? { inFlightForADay: sessionLoad / DAY_S } : {}),
    ...(ceiling ? { ceiling } : {}),
    basis: loads,
  });
}
