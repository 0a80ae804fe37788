import type { ModelClient, ModelRequest, ModelResponse } from '../../engine/index.js';

/**
 * Counts agent sessions in flight from the client's side, as an endpoint would see them, so a
 * test of the session limiter measures the engine from outside. A session is in flight from
 * its first request until the reply that ends it (no tool call, or a `finish` call), or until
 * the next session of the same unit of work (same node, same arm) starts, since a unit runs its
 * sessions one after another. A drift judge is consulted by a session that waits for it, on
 * that session's slot (see SessionLimiter), so it is counted with it and not on its own. Every
 * call is held `holdMs`, so sessions that could overlap do.
 */
export class SessionGauge {
  now = 0;
  peak = 0;
  /** Open sessions by id, each with the unit it belongs to. */
  private readonly open = new Map<string, string>();

  constructor(private readonly holdMs: number) {}

  wrap(client: ModelClient): ModelClient {
    return { complete: (request) => this.complete(client, request) };
  }

  private async complete(client: ModelClient, request: ModelRequest): Promise<ModelResponse> {
    const counted = request.role !== 'drift_judge';
    const unit = `${request.arm ?? ''}|${request.nodeId}`;
    if (counted && !this.open.has(request.sessionId)) {
      for (const [id, u] of this.open) if (u === unit) this.close(id);
      this.open.set(request.sessionId, unit);
      this.now++;
      this.peak = Math.max(this.peak, this.now);
    }
    await new Promise((resolve) => setTimeout(resolve, this.holdMs));
    const response = await client.complete(request);
    if (counted && (!response.toolCalls.length || response.toolCalls.some((c) => c.name === 'finish'))) this.close(request.sessionId);
    return response;
  }

  private close(sessionId: string): void {
    if (this.open.delete(sessionId)) this.now--;
  }
}
