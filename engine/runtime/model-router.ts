import { BudgetExhaustedError, ModelConfigurationError, ModelQuotaExhaustedError, ModelRateLimitedError, ModelResponseInvalidError, ModelUnavailableError, NoEligibleModelError } from '../base/errors.js';
import { SECRET_SHAPES, type SecretCatalogue } from '../base/secrets.js';
import { meterUsage, typicalTokens, type Unreceived } from '../base/usage.js';
import type { Clock } from '../ports/clock.js';
import { type EventSink, stamp } from '../ports/events.js';
import { conservativeUsage, type ChatMessage, type ModelClient, type ModelRequest, type ModelResponse, type Role, type ToolSpec } from '../ports/model-client.js';
import type { Accounting } from './accounting.js';
import { isUnplaced, placeModel } from './model-family.js';
import { priceOf, type ModelSpec, type Tier } from './model-spec.js';

/** Which tiers a role prefers, best first. */
const TIER_PREFERENCE: Record<Role, Tier[]> = {
  planner: ['large', 'medium', 'small'],
  worker: ['medium', 'large', 'small'],
  checker: ['medium', 'large', 'small'],
  merger: ['medium', 'large', 'small'],
  verifier: ['medium', 'large', 'small'],
  reviewer: ['medium', 'large', 'small'],
  self_reviewer: ['medium', 'large', 'small'],
  drift_judge: ['small', 'medium', 'large'],
};

/** Roles whose output is work: their answering family is recorded as a contributor. */
export const CONTRIBUTING_ROLES: ReadonlySet<Role> = new Set(['planner', 'worker', 'checker', 'merger']);

/**
 * Above this many tokens of room, `maxTokens` is left to the endpoint: every endpoint caps
 * output lower than this, and some refuse a `max_tokens` larger than their own limit.
 */
export const UNBOUNDED_OUTPUT_TOKENS = 32_768;

export interface RouterOptions {
  roster: ModelSpec[];
  /** Clients by endpoint name. */
  clients: Record<string, ModelClient>;
  accounting: Accounting;
  events: EventSink;
  clock: Clock;
  /** How long a failing model rests before it is tried again. Never forever. Default 60 000 ms. */
  cooldownMs?: number;
  /** Consecutive failed calls (each after the client's own retries) before a cooldown. Default 2. */
  failuresBeforeCooldown?: number;
  /** Redacts keys from fallback reasons. Default: shapes only. */
  secrets?: SecretCatalogue;
}

export interface RouteRequest {
  sessionId: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  json?: boolean;
  /** A lower output ceiling than the budget's. Default: the budget's. */
  maxTokens?: number;
  /** Families that may not answer (independence). Default none. */
  excludeFamilies?: Iterable<string>;
  /** When given, only these families may answer (a self-review stays with the family that merged). Default: any. */
  onlyFamilies?: Iterable<string>;
}

/**
 * Whether a roster entry restricted to `roles` may serve `role`. A self-review is the merging
 * agent reviewing its own merge, so whatever may merge may also self-review.
 */
function serves(roles: readonly Role[] | undefined, role: Role): boolean {
  return !roles || roles.includes(role) || (role === 'self_reviewer' && roles.includes('merger'));
}

export interface RoutedResponse extends ModelResponse {
  /** The roster entry that answered (after any fallback). */
  spec: ModelSpec;
  /** Family of the model that actually answered; `unplaced:<id>` when the roster cannot place it. */
  family: string;
  costUsd: number;
  usageNote: string | null;
}

/**
 * Chooses a model per role, falls back along the role's chain (within the role's family) when a
 * provider fails, and books the call on the current node. Only a classified provider failure
 * moves a call: any other exception is a bug and is thrown as it is. Independence is judged on who actually answered: the family of
 * the answering model (not the configured one) becomes a contributor, exclusions apply to
 * every link of the fallback chain, and an answer from an excluded or unplaceable family is
 * paid for but never used. A failure true of every later call (quota, configuration) latches:
 * every later call, on any node, throws it at once.
 */
export class ModelRouter {
  private readonly failures = new Map<string, number>();
  private readonly coolingUntil = new Map<string, number>();
  /** Who last answered each session: what a caller reads to know the real author of a verdict. */
  private readonly answers = new Map<string, { model: string; family: string }>();
  private readonly cooldownMs: number;
  private readonly failuresBeforeCooldown: number;
  private fatal: Error | null = null;

  constructor(private readonly options: RouterOptions) {
    this.cooldownMs = options.cooldownMs ?? 60_000;
    this.failuresBeforeCooldown = options.failuresBeforeCooldown ?? 2;
  }

  get roster(): ModelSpec[] {
    return this.options.roster;
  }

  /**
   * The role's chain, best first, without excluded families (and, when `onlyFamilies` is given,
   * only those), and within one family: the family of the role's preferred model. A fallback
   * never moves the work (or the judging) to another family, which would change who did it for
   * a reason that has nothing to do with the experiment. Cooling models are kept but tried last;
   * a cooldown never changes the role's family either.
   */
  candidates(role: Role, excludeFamilies: Iterable<string> = [], onlyFamilies?: Iterable<string>): ModelSpec[] {
    const excluded = new Set(excludeFamilies);
    const only = onlyFamilies ? new Set(onlyFamilies) : null;
    // A contributor nobody could place may be of any family: nobody is independent of it.
    if ([...excluded].some(isUnplaced)) return [];
    const prefs = TIER_PREFERENCE[role];
    const now = this.options.clock.now().getTime();
    const eligible = this.options.roster
      .map((m, i) => ({ m, i }))
      .filter(({ m }) => !excluded.has(m.family) && (!only || only.has(m.family)) && serves(m.roles, role))
      .sort((a, b) => prefs.indexOf(a.m.tier) - prefs.indexOf(b.m.tier) || a.i - b.i);
    const family = eligible[0]?.m.family;
    return eligible
      .filter(({ m }) => m.family === family)
      .map((x) => ({ ...x, cooling: (this.coolingUntil.get(x.m.name) ?? 0) > now }))
      .sort((a, b) => Number(a.cooling) - Number(b.cooling))
      .map((x) => x.m);
  }

  /** The model and family that answered a session's most recent call. */
  lastAnswer(sessionId: string): { model: string; family: string } | undefined {
    return this.answers.get(sessionId);
  }

  async call(role: Role, request: RouteRequest): Promise<RoutedResponse> {
    const { accounting, events, clock } = this.options;
    if (this.fatal) throw this.fatal;
    this.refusedByBudget(() => accounting.assertRoom(request.sessionId));
    const exclude = [...new Set(request.excludeFamilies ?? [])];
    const only = request.onlyFamilies ? [...new Set(request.onlyFamilies)] : undefined;
    const chain = this.candidates(role, exclude, only);
    if (!chain.length) throw new NoEligibleModelError(role, only ? `no configured model of family ${only.join(', ')} may serve ${role}` : noCandidate(exclude));
    const nodeId = accounting.current().nodeId;
    // The failure of the role's own model: what the node's stop names, whatever its fallbacks did after.
    let firstError: unknown;
    for (const [i, spec] of chain.entries()) {
      const client = this.options.clients[spec.endpoint];
      if (!client) throw this.latch(new ModelConfigurationError(spec.model, `no client for endpoint ${spec.endpoint}`));
      const fallback = (reason: string) =>
        events.emit({ type: 'model_fallback', ...stamp(clock, nodeId), role, from: spec.name, to: chain[i + 1]?.name ?? null, reason: this.redact(reason) });
      const output = this.refusedByBudget(() => this.outputCeiling(spec, request));
      const modelRequest: ModelRequest = {
        model: spec.model, messages: request.messages, tools: request.tools, json: request.json,
        maxTokens: output.maxTokens, role, sessionId: request.sessionId, nodeId, attempt: accounting.attempt(),
        // What a reply whose usage cannot be read is charged for output when no max_tokens is sent.
        ...(output.maxTokens === undefined ? { outputBound: output.bound } : {}),
        ...(accounting.arm() ? { arm: accounting.arm()! } : {}),
      };
      let response: ModelResponse;
      try {
        response = await client.complete(modelRequest);
      } catch (error) {
        // Quota and configuration failures are true of every later call: no fallback hides them.
        if (error instanceof ModelQuotaExhaustedError || error instanceof ModelConfigurationError) throw this.latch(error);
        // Only a classified provider failure moves a call; anything else is a bug, never served by another model.
        if (!isProviderFailure(error)) throw error;
        // Attempts the server may have answered but the client never received are paid for.
        if (error.unreceived) this.chargeUnreceived(spec, modelRequest, error.unreceived);
        firstError ??= error;
        this.noteFailure(spec, error);
        fallback(error.message);
        continue;
      }
      this.failures.delete(spec.name);
      if (response.unreceived) this.chargeUnreceived(spec, modelRequest, response.unreceived);
      const metered = meterUsage(response.usage, conservativeUsage(modelRequest, response));
      const usageNote = [response.usageNote, metered.note].filter(Boolean).join('; ') || null;
      const { family } = placeModel(response.model, this.options.roster);
      const costUsd = priceOf(spec, metered.usage);
      accounting.charge(metered.usage, costUsd, { sessionId: request.sessionId, estimated: usageNote !== null });
      if (response.finishReason === 'length') accounting.noteCut('length');
      events.emit({
        type: 'charge', ...stamp(clock, nodeId), sessionId: request.sessionId, attempt: modelRequest.attempt,
        role, model: response.model, family, usage: metered.usage, costUsd, usageNote,
      });
      // Re-checked after every answer: a gateway may have served another model than the one asked.
      const misplaced =
        exclude.length && (exclude.includes(family) || isUnplaced(family))
          ? `excluded: ${exclude.join(', ')}`
          : only && !only.includes(family)
            ? `only: ${only.join(', ')}`
            : null;
      if (misplaced) {
        const error = new NoEligibleModelError(role, `${response.model} answered for ${spec.model} as family ${family}, which may not serve here (${misplaced})`);
        firstError ??= error;
        fallback(error.message);
        continue;
      }
      this.answers.set(request.sessionId, { model: response.model, family });
      if (CONTRIBUTING_ROLES.has(role)) accounting.recordContributor(response.model, family);
      return { ...response, usage: metered.usage, spec, family, costUsd, usageNote };
    }
    throw firstError;
  }

  /** Books the attempts of a call that were lost on the way back, at the worst case the client charged them. */
  private chargeUnreceived(spec: ModelSpec, request: ModelRequest, unreceived: Unreceived): void {
    const { accounting, events, clock } = this.options;
    const costUsd = priceOf(spec, unreceived.usage);
    accounting.charge(unreceived.usage, costUsd, { sessionId: request.sessionId, estimated: true });
    events.emit({
      type: 'charge', ...stamp(clock, request.nodeId), sessionId: request.sessionId, attempt: request.attempt, role: request.role, model: spec.model, family: spec.family,
      usage: unreceived.usage, costUsd, usageNote: `${unreceived.attempts} attempt(s) the server may have answered but the client never received, charged at the most they could have cost`,
    });
  }

  /** Runs a budget check, counting a refusal as a call of the current node cut short. */
  private refusedByBudget<T>(check: () => T): T {
    try {
      return check();
    } catch (error) {
      if (error instanceof BudgetExhaustedError) this.options.accounting.noteCut('budget');
      throw error;
    }
  }

  /**
   * The most output the budget leaves for this call: the least room under every ceiling, less
   * the prompt it is about to send. Refused outright when even the prompt does not fit.
   */
  private outputCeiling(spec: ModelSpec, request: RouteRequest): { maxTokens: number | undefined; bound: number } {
    const { accounting } = this.options;
    const room = accounting.room(request.sessionId);
    const input = typicalTokens(JSON.stringify(request.messages) + JSON.stringify(request.tools ?? []));
    let ceiling = Math.min(room.tokens - input, request.maxTokens ?? Infinity, spec.maxOutputTokens ?? Infinity);
    if (room.costUsd !== null && spec.prices && spec.prices.output > 0) {
      const inputCost = (input * spec.prices.input) / 1e6;
      ceiling = Math.min(ceiling, Math.floor(((room.costUsd - inputCost) * 1e6) / spec.prices.output));
    }
    if (ceiling < 1) {
      throw new BudgetExhaustedError(accounting.current().nodeId, room.binding, `the next call needs about ${input} input tokens and the ${room.binding} leaves ${room.tokens} tokens${room.costUsd !== null ? ` and $${room.costUsd.toFixed(4)}` : ''}`);
    }
    const bound = Math.floor(ceiling);
    return { maxTokens: ceiling > UNBOUNDED_OUTPUT_TOKENS && request.maxTokens === undefined && spec.maxOutputTokens === undefined ? undefined : bound, bound };
  }

  private noteFailure(spec: ModelSpec, error: unknown): void {
    const count = (this.failures.get(spec.name) ?? 0) + 1;
    this.failures.set(spec.name, count);
    // A server asking for a long wait is cooled at once, not after a second failure.
    const retryAfter = error instanceof ModelRateLimitedError ? (error.retryAfterMs ?? 0) : 0;
    if (count >= this.failuresBeforeCooldown || retryAfter > this.cooldownMs) {
      this.coolingUntil.set(spec.name, this.options.clock.now().getTime() + Math.max(this.cooldownMs, retryAfter));
      this.failures.delete(spec.name);
    }
  }

  private latch(error: Error): Error {
    this.fatal ??= error;
    return error;
  }

  private redact(text: string): string {
    return (this.options.secrets ?? SECRET_SHAPES).redact(text);
  }
}

/** The failures of a provider a call may be moved for: it was unavailable, rate limited, or sent something unreadable. */
function isProviderFailure(error: unknown): error is ModelUnavailableError | ModelRateLimitedError | ModelResponseInvalidError {
  return error instanceof ModelUnavailableError || error instanceof ModelRateLimitedError || error instanceof ModelResponseInvalidError;
}

function noCandidate(exclude: string[]): string {
  const unplaced = exclude.filter(isUnplaced);
  if (unplaced.length) {
    return `a model that produced this work (${unplaced.map((f) => f.slice(f.indexOf(':') + 1)).join(', ')}) cannot be placed in a family, so no model can be shown independent of it`;
  }
  return exclude.length ? `every configured model is of an excluded family (${exclude.join(', ')})` : 'the roster has no model for it';
}
