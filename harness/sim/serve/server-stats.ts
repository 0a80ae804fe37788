import { z } from 'zod';
import type { Usage } from '../../../engine/index.js';

const Count = z.int().nonnegative();

/**
 * What `harness sim serve` counted, as `GET /_rdh/stats` serves it: per call, how often it was
 * seen and how often answered 200 (a call answered twice was paid twice), and totals per
 * outcome. A refused connection never reaches the server, so outages are counted as entered.
 */
export const ServerStats = z.strictObject({
  /** Chat requests that reached the handler, well-formed or not (what `after_requests` counts). */
  received: Count,
  /** Answered 200 with a completion. */
  answered: Count,
  /** Tokens of the answered requests as their replies reported them: prompt (cached included), of it served from the prompt cache, and completion. */
  tokens: z.strictObject({ prompt: Count, cached: Count, completion: Count }),
  /** Answered 429, by why: drawn by `rate_limit`, or an empty per-minute bucket. */
  rateLimited: z.strictObject({ drawn: Count, requestsPerMinute: Count, tokensPerMinute: Count }),
  /** Answered with the 5xx of an http_error window. */
  serverErrors: Count,
  /** Refused as malformed or for an unknown model (400, 404, 405, 413). */
  badRequests: Count,
  /** Answered 500 because the server itself failed (logged); none in a healthy run. */
  internalErrors: Count,
  /** Outages begun, by a window or by hand. */
  outagesEntered: Count,
  /** Requests that arrived on an already-open connection during an outage, and were reset. */
  resetInOutage: Count,
  /** By call key (`<cell>/<session>#<message count>`): tries seen, and tries answered 200. */
  calls: z.record(z.string(), z.strictObject({ seen: Count, answered: Count })),
});
export type ServerStats = z.infer<typeof ServerStats>;

export type StatsOutcome = 'answered' | 'drawn' | 'requests_per_minute' | 'tokens_per_minute' | 'server_error' | 'bad_request' | 'internal_error';

/** The server's counters; `snapshot()` is a copy, so a caller cannot change what is counted. */
export class StatsCounter {
  private readonly stats: ServerStats = {
    received: 0,
    answered: 0,
    tokens: { prompt: 0, cached: 0, completion: 0 },
    rateLimited: { drawn: 0, requestsPerMinute: 0, tokensPerMinute: 0 },
    serverErrors: 0,
    badRequests: 0,
    internalErrors: 0,
    outagesEntered: 0,
    resetInOutage: 0,
    calls: {},
  };

  /** Counts a chat request arriving; returns its number, 1-based. */
  receive(): number {
    return ++this.stats.received;
  }

  /** Counts one more try of `call`; returns how many times it had been seen before. */
  see(call: string): number {
    const entry = (this.stats.calls[call] ??= { seen: 0, answered: 0 });
    return entry.seen++;
  }

  /** Counts how a request ended; `call` is the key of a well-formed one. */
  outcome(kind: StatsOutcome, call?: string): void {
    const s = this.stats;
    switch (kind) {
      case 'answered':
        s.answered++;
        if (call) s.calls[call]!.answered++;
        return;
      case 'drawn':
        s.rateLimited.drawn++;
        return;
      case 'requests_per_minute':
        s.rateLimited.requestsPerMinute++;
        return;
      case 'tokens_per_minute':
        s.rateLimited.tokensPerMinute++;
        return;
      case 'server_error':
        s.serverErrors++;
        return;
      case 'bad_request':
        s.badRequests++;
        return;
      case 'internal_error':
        s.internalErrors++;
    }
  }

  /** Adds an answered request's usage to the token totals. */
  tokens(usage: Usage): void {
    const t = this.stats.tokens;
    t.prompt += usage.inputTokens;
    t.cached += usage.cachedTokens;
    t.completion += usage.outputTokens;
  }

  outageEntered(): void {
    this.stats.outagesEntered++;
  }

  resetInOutage(): void {
    this.stats.resetInOutage++;
  }

  snapshot(): ServerStats {
    return structuredClone(this.stats);
  }
}
