import { z } from 'zod';
import type { Accounting } from './accounting.js';
import type { Clock } from '../ports/clock.js';
import {
  ModelConfigurationError,
  ModelQuotaExhaustedError,
  ModelRateLimitedError,
  NoEligibleModelError,
} from '../base/errors.js';
import { type EventSink, stamp } from '../ports/events.js';
import { Role, type ChatMessage, type ModelClient, type ModelResponse, type ToolSpec } from '../ports/model-client.js';
import type { Usage } from '../base/usage.js';

export const Tier = z.enum(['small', 'medium', 'large']);
export type Tier = z.infer<typeof Tier>;

/** One model the engine may call, and what is true of it. */
export const ModelSpec = z
  .object({
    /** Unique name in the roster. */
    name: z.string().min(1),
    /** The id sent to the endpoint. */
    model: z.string().min(1),
    /** Key of the ModelClient that serves it. */
    endpoint: z.string().min(1),
    /** The organisation that trained it: independence is judged on this. */
    family: z.string().min(1),
    tier: Tier,
    /** Roles it may serve. Default: any, by tier preference. */
    roles: z.array(Role).optional(),
    /** USD per million tokens. Default: unpriced (cost 0, tokens still counted). */
    prices: z
      .object({ input: z.number().nonnegative(), output: z.number().nonnegative(), cachedInput: z.number().nonnegative() })
      .optional(),
  })
  .strict();
export type ModelSpec = z.infer<typeof ModelSpec>;

/** Which tiers a role prefers, best first. */
const TIER_PREFERENCE: Record<Role, Tier[]> = {
  planner: ['large', 'medium', 'small'],
  worker: ['medium', 'large', 'small'],
  checker: ['medium', 'large', 'small'],
  merger: ['medium', 'large', 'small'],
  verifier: ['medium', 'large', 'small'],
  reviewer: ['medium', 'large', 'small'],
  drift_judge: ['small', 'medium', 'large'],
};

/** Roles whose output is work: their answering family is recorded as a contributor. */
export const CONTRIBUTING_ROLES: ReadonlySet<Role> = new Set(['planner', 'worker', 'checker', 'merger']);

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
}

export interface RouteRequest {
  sessionId: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  json?: boolean;
  maxTokens?: number;
  /** Families that may not answer (independence). Default none. */
  excludeFamilies?: Iterable<string>;
}

export interface RoutedResponse extends ModelResponse {
  /** The roster entry that answered (after any fallback). */
  spec: ModelSpec;
  /** Family of the model that actually answered; `unknown:<id>` when the endpoint named a model we cannot place. */
  family: string;
  costUsd: number;
}

/**
 * Chooses a model per role, falls back along the role's chain when one fails, and books the
 * call on the current node. Independence is judged on who actually answered: the family of the
 * answering model (not the configured one) becomes a contributor, and exclusions apply to
 * every link of the fallback chain.
 */
export class ModelRouter {
  private readonly failures = new Map<string, number>();
  private readonly coolingUntil = new Map<string, number>();
  /** Who last answered each session: what a caller reads to know the real author of a verdict. */
  private readonly answers = new Map<string, { model: string; family: string }>();
  private readonly cooldownMs: number;
  private readonly failuresBeforeCooldown: number;

  constructor(private readonly options: RouterOptions) {
    this.cooldownMs = options.cooldownMs ?? 60_000;
    this.failuresBeforeCooldown = options.failuresBeforeCooldown ?? 2;
  }

  get roster(): ModelSpec[] {
    return this.options.roster;
  }

  /** The role's chain, best first, without excluded families. Cooling models are kept but tried last. */
  candidates(role: Role, excludeFamilies: Iterable<string> = []): ModelSpec[] {
    const excluded = new Set(excludeFamilies);
    const prefs = TIER_PREFERENCE[role];
    const now = this.options.clock.now().getTime();
    return this.options.roster
      .filter((m) => !excluded.has(m.family) && (!m.roles || m.roles.includes(role)))
      .map((m, i) => ({ m, i, cooling: (this.coolingUntil.get(m.name) ?? 0) > now }))
      .sort((a, b) => Number(a.cooling) - Number(b.cooling) || prefs.indexOf(a.m.tier) - prefs.indexOf(b.m.tier) || a.i - b.i)
      .map((x) => x.m);
  }

  /** The model and family that answered a session's most recent call. */
  lastAnswer(sessionId: string): { model: string; family: string } | undefined {
    return this.answers.get(sessionId);
  }

  /** Family of the model an endpoint says answered. */
  familyOf(answered: string, asked: ModelSpec): string {
    if (answered === asked.model || answered.startsWith(`${asked.model}-`)) return asked.family;
    const known = this.options.roster.find((m) => m.model === answered || m.name === answered);
    return known ? known.family : `unknown:${answered}`;
  }

  async call(role: Role, request: RouteRequest): Promise<RoutedResponse> {
    const { accounting, events, clock } = this.options;
    accounting.assertRoom();
    const exclude = [...(request.excludeFamilies ?? [])];
    const chain = this.candidates(role, exclude);
    if (!chain.length) {
      throw new NoEligibleModelError(role, exclude.length ? `every configured model is of an excluded family (${exclude.join(', ')})` : 'the roster has no model for it');
    }
    const nodeId = accounting.current().nodeId;
    let lastError: unknown;
    for (const [i, spec] of chain.entries()) {
      const client = this.options.clients[spec.endpoint];
      if (!client) throw new ModelConfigurationError(spec.model, `no client for endpoint ${spec.endpoint}`);
      try {
        const response = await client.complete({
          model: spec.model,
          messages: request.messages,
          tools: request.tools,
          json: request.json,
          maxTokens: request.maxTokens,
          role,
          sessionId: request.sessionId,
          nodeId,
        });
        this.failures.delete(spec.name);
        const family = this.familyOf(response.model, spec);
        this.answers.set(request.sessionId, { model: response.model, family });
        const costUsd = priceOf(spec, response.usage);
        accounting.charge(response.usage, costUsd);
        if (CONTRIBUTING_ROLES.has(role)) accounting.recordContributor(response.model, family);
        events.emit({
          type: 'charge', ...stamp(clock, nodeId), sessionId: request.sessionId,
          role, model: response.model, family, usage: response.usage, costUsd,
        });
        return { ...response, spec, family, costUsd };
      } catch (error) {
        // Quota and configuration failures are true of every later call: no fallback hides them.
        if (error instanceof ModelQuotaExhaustedError || error instanceof ModelConfigurationError) throw error;
        lastError = error;
        const count = (this.failures.get(spec.name) ?? 0) + 1;
        this.failures.set(spec.name, count);
        if (count >= this.failuresBeforeCooldown) {
          const retryAfter = error instanceof ModelRateLimitedError ? (error.retryAfterMs ?? 0) : 0;
          this.coolingUntil.set(spec.name, clock.now().getTime() + Math.max(this.cooldownMs, retryAfter));
          this.failures.delete(spec.name);
        }
        events.emit({
          type: 'model_fallback', ...stamp(clock, nodeId), role,
          from: spec.name, to: chain[i + 1]?.name ?? null, reason: (error as Error).message,
        });
      }
    }
    throw lastError;
  }
}

export function priceOf(spec: ModelSpec, usage: Usage): number {
  if (!spec.prices) return 0;
  const fresh = usage.inputTokens - usage.cachedTokens;
  return (fresh * spec.prices.input + usage.cachedTokens * spec.prices.cachedInput + usage.outputTokens * spec.prices.output) / 1e6;
}
