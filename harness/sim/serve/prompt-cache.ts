import { createHash } from 'node:crypto';
import type { CachingPlan } from './fault-plan.js';
import { CHARS_PER_TOKEN } from './prompt-text.js';

/** The defaults of a `caching:` section: OpenAI's published 1,024-token minimum and 128-token increments. */
export const CACHE_DEFAULTS = { min_tokens: 1024, block_tokens: 128, max_blocks: 65_536 } as const;

/**
 * Prompt caching by longest common prefix, as OpenAI does it: the prompt text (prompt-text.ts)
 * is cut into blocks of `block_tokens` tokens (4 characters a token), and each block is named
 * by a hash chained over the model and every block before it, so a block's hash stands for the
 * whole prefix ending there. A request is told the longest run of leading blocks already in the
 * store, in tokens, or 0 below `min_tokens`; only whole blocks count, so the partial block at
 * the end of a prompt is never cached. The store keeps `max_blocks` hashes, least recently used
 * dropped first, so a long sweep cannot grow it without bound.
 */
export class PromptCache {
  private readonly blockChars: number;
  private readonly minTokens: number;
  private readonly blockTokens: number;
  private readonly maxBlocks: number;
  /** Prefix hashes, in least-recently-used order (a Map iterates in insertion order). */
  private readonly store = new Map<string, true>();

  constructor(plan: CachingPlan) {
    this.blockTokens = plan.block_tokens ?? CACHE_DEFAULTS.block_tokens;
    this.minTokens = plan.min_tokens ?? CACHE_DEFAULTS.min_tokens;
    this.maxBlocks = plan.max_blocks ?? CACHE_DEFAULTS.max_blocks;
    this.blockChars = this.blockTokens * CHARS_PER_TOKEN;
  }

  /** The chained hash of every whole block of `text`, for `model`. */
  private chain(model: string, text: string): string[] {
    const hashes: string[] = [];
    let previous = createHash('sha256').update(model).digest('hex');
    for (let at = 0; at + this.blockChars <= text.length; at += this.blockChars) {
      previous = createHash('sha256').update(previous).update(text.slice(at, at + this.blockChars)).digest('hex');
      hashes.push(previous);
    }
    return hashes;
  }

  /** Cached tokens for a prompt: the longest stored prefix in whole blocks, 0 below the minimum, never above `promptTokens`. */
  lookup(model: string, text: string, promptTokens: number): number {
    let blocks = 0;
    for (const h of this.chain(model, text)) {
      if (!this.store.has(h)) break;
      // A hit is a use: move it to the recent end.
      this.store.delete(h);
      this.store.set(h, true);
      blocks++;
    }
    const tokens = Math.min(blocks * this.blockTokens, Math.floor(promptTokens / this.blockTokens) * this.blockTokens);
    return tokens >= this.minTokens ? tokens : 0;
  }

  /** Keeps every whole-block prefix of an answered prompt. */
  remember(model: string, text: string): void {
    for (const h of this.chain(model, text)) {
      this.store.delete(h);
      this.store.set(h, true);
    }
    for (const oldest of this.store.keys()) {
      if (this.store.size <= this.maxBlocks) break;
      this.store.delete(oldest);
    }
  }
}
