/**
 * The RateControl port: how many calls to one provider key may be in flight, and when the next
 * may go out. Providers limit per key (or organisation), and executor and reviewer may share a
 * gateway, so a sweep holds ONE controller per (base URL, key), shared by every model behind it.
 * The OpenAI adapter takes a permit before every attempt and returns it with what the attempt
 * came to; session admission (engine/ports/session-limiter.ts) reads the limits it settles on.
 *
 * The implementation (engine/adapters/rate-controller.ts) paces from rate-limit headers when a
 * provider sends them and otherwise runs AIMD: doubling until the first rate-limit episode,
 * then additive increase and a multiplicative cut per episode. 429s within one cool-down are
 * one episode. The cool-down is the controller's own, never the provider's Retry-After, which
 * only delays the retried call (a cool-down pushed forward by every Retry-After freezes the
 * controller after one cut under a steady stream of 429s).
 */

/** What one attempt came to, as the controller needs it. */
export interface AttemptReport {
  /** `answered`: a completion was read. `rate_limited`: a 429 (or a rate-limit error in a 200). `failed`: anything else. */
  outcome: 'answered' | 'rate_limited' | 'failed';
  /** The reply's headers, when a reply came (rate-limit headers are read from any status). */
  headers?: Headers;
  /** Tokens the call used (prompt + completion) when answered; the estimate otherwise. */
  tokens?: number;
  /**
   * Which quota a 429 says it hit, read from its words (engine/adapters/rate-limit-unit.ts):
   * providers name it ("tokens per min (TPM)", "requests per minute"). Absent when the words
   * name neither, or for any other outcome.
   */
  limitedOn?: 'requests' | 'tokens';
}

/** A permit for one attempt in flight. Release it exactly once, when the attempt ends. */
export interface CallPermit {
  release(report: AttemptReport): void;
}

/** What a controller shows a person (the live display) and the journal. */
export interface RateControlStatus {
  /** The provider's name, as the configuration gives it (several models may share it). */
  provider: string;
  /** Calls in flight it allows now. */
  limit: number;
  min: number;
  max: number;
  /** Calls in flight now, and waiting for a permit. */
  inFlight: number;
  waiting: number;
  /** `headers`: paced from the provider's rate-limit headers; `aimd`: from 429s alone; `fixed`: never adapts. */
  pacing: 'headers' | 'aimd' | 'fixed';
  /** False until the first rate-limit episode (slow start doubles until then). */
  episodeSeen: boolean;
  /** Rate-limit episodes (429s within one cool-down count once). */
  episodes: number;
  /** Attempts reported, and how many of them were 429s, since the controller started. */
  attempts: number;
  rateLimited: number;
  /**
   * Calls wanted (in flight plus waiting for a permit) integrated over time since the controller
   * started, in call-milliseconds: session admission reads its duty cycle from the difference
   * between two readings, exactly, however rarely it samples.
   */
  wantedCallMs: number;
  /** Attempts in flight per model, the share each holds of the limit now. */
  perModel: Record<string, number>;
}

export interface RateControl {
  /**
   * Waits until an attempt of `model`, estimated at `tokens` (prompt plus the most it may
   * produce), may go out, and resolves with its permit. Models behind one key share its limit.
   */
  acquire(model: string, tokens: number): Promise<CallPermit>;
  status(): RateControlStatus;
}
