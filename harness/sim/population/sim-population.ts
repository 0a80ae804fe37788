import type { ModelClient, ModelRequest, ModelResponse, Usage } from '../../../engine/index.js';
import { answer, type SimReply } from './conversation.js';
import { seamChecks, mergerReply } from './merger.js';
import { plannerReply } from './planner.js';
import { reviewerReply } from './reviewer.js';
import { verifierReply } from './verifier.js';
import { leafChecks, workerReply } from './worker.js';
import { SimPopulationError, SimWorld, type SimWorldOptions } from './sim-world.js';

/** What every model id of the simulated population carries, so no artifact can pass for a real model's (one definition, in the sweep's roster). */
export { SIMULATED_TAG } from '../../providers/sweep-roster.js';
import { SIMULATED_TAG } from '../../providers/sweep-roster.js';

/**
 * Deterministic synthetic usage, a function of the sim's own side of the conversation only
 * (tool outputs such as test timings vary from run to run, so they are not counted): a fixed
 * prompt, a fixed cost per message, and what the sim itself wrote, at 4 characters a token.
 */
export function syntheticUsage(req: ModelRequest, reply: SimReply): Usage {
  const own = req.messages.reduce((n, m) => n + (m.role === 'assistant' ? (m.content?.length ?? 0) + JSON.stringify(m.toolCalls ?? []).length : 0), 0);
  return {
    inputTokens: 400 + 60 * req.messages.length + Math.ceil(own / 4),
    outputTokens: Math.max(1, Math.ceil(((reply.content?.length ?? 0) + JSON.stringify(reply.toolCalls).length) / 4)),
    cachedTokens: 0,
  };
}

/**
 * The built-in SIMULATED agent population behind the engine's ModelClient port, for one cell.
 * It answers every role with real messages and real tool calls (writes the corpus, reads files
 * to find planted markers, runs its tests), and makes exactly the pure model's decisions for
 * the same seed and identity, so a Docker-run sim cell and the pure sampler agree. It answers
 * as whichever roster model was asked (each id says SIMULATED), reports deterministic
 * synthetic usage, and needs no key and no network.
 */
export class SimPopulation implements ModelClient {
  readonly world: SimWorld;
  /** Calls answered, by role. */
  readonly calls = new Map<string, number>();

  constructor(options: SimWorldOptions | SimWorld) {
    this.world = options instanceof SimWorld ? options : new SimWorld(options);
  }

  async complete(req: ModelRequest): Promise<ModelResponse> {
    if (!req.model.includes(SIMULATED_TAG)) throw new SimPopulationError(`model ${JSON.stringify(req.model)} is not a simulated model id (they end in ${SIMULATED_TAG})`);
    this.calls.set(req.role, (this.calls.get(req.role) ?? 0) + 1);
    const reply = this.reply(req);
    const usage = syntheticUsage(req, reply);
    // Like a real endpoint, it never writes more than it was allowed, and says so.
    if (req.maxTokens !== undefined && usage.outputTokens > req.maxTokens) {
      return { content: null, toolCalls: [], usage: { ...usage, outputTokens: req.maxTokens }, model: req.model, finishReason: 'length' };
    }
    return { ...reply, usage, model: req.model, finishReason: reply.toolCalls.length ? 'tool_calls' : 'stop' };
  }

  private reply(req: ModelRequest): SimReply {
    const w = this.world;
    switch (req.role) {
      case 'planner':
        return plannerReply(w, req);
      case 'checker':
        return w.node(w.buildArmOf(req.arm ?? undefined), req.nodeId).children.length ? seamChecks(w) : leafChecks(w, req);
      case 'worker':
        return workerReply(w, req);
      case 'verifier':
        return verifierReply(req);
      case 'merger':
        return mergerReply(w, req);
      case 'reviewer':
      case 'self_reviewer':
        return reviewerReply(w, req);
      case 'drift_judge':
        return answer({ drift: 0, impossible: false, reason: 'SIMULATED: the simulated population never drifts' });
      default:
        throw new SimPopulationError(`the simulated population has no behaviour for role ${String(req.role)}`);
    }
  }
}
