import { describe, expect, it } from 'vitest';
import { familyDisagreement, vendorOf } from '../../../harness/testing.js';

describe('the vendor-prefix table of harness models', () => {
  it('reads the vendor from a gateway org prefix before the bare model name', () => {
    const read = (id: string) => vendorOf(id)?.family ?? null;
    expect(
      Object.fromEntries(
        ['openai/gpt-4o', 'anthropic/claude-3.5-sonnet', 'google/gemini-2.0-flash', 'meta-llama/llama-3.1-70b', 'mistralai/mixtral-8x7b', 'qwen/qwen-2.5-72b', 'deepseek/deepseek-r1-distill-llama-70b', 'x-ai/grok-2', 'gpt-4o-mini', 'o3-mini', 'claude-3-haiku', 'gemma-2-9b', 'groq/llama3-70b', 'codestral-latest', 'Qwen2.5-Coder', 'deepseek-chat', 'grok-beta', 'sim-executor (SIMULATED)', 'foo1-model'].map((id) => [id, read(id)]),
      ),
    ).toEqual({
      'openai/gpt-4o': 'openai',
      'anthropic/claude-3.5-sonnet': 'anthropic',
      'google/gemini-2.0-flash': 'google',
      'meta-llama/llama-3.1-70b': 'meta',
      'mistralai/mixtral-8x7b': 'mistral',
      'qwen/qwen-2.5-72b': 'qwen',
      // The org that published the weights, not the base model distilled from.
      'deepseek/deepseek-r1-distill-llama-70b': 'deepseek',
      'x-ai/grok-2': 'xai',
      'gpt-4o-mini': 'openai',
      'o3-mini': 'openai',
      'claude-3-haiku': 'anthropic',
      'gemma-2-9b': 'google',
      'groq/llama3-70b': 'meta',
      'codestral-latest': 'mistral',
      'Qwen2.5-Coder': 'qwen',
      'deepseek-chat': 'deepseek',
      'grok-beta': 'xai',
      'sim-executor (SIMULATED)': null,
      'foo1-model': null,
    });
  });

  it('accepts a declared family or any of its aliases, in any case, and is silent when nothing is declared', () => {
    expect(familyDisagreement('meta-llama/llama-3.1-8b', 'Meta')).toBeUndefined();
    expect(familyDisagreement('meta-llama/llama-3.1-8b', ' llama ')).toBeUndefined();
    expect(familyDisagreement('claude-3-haiku', undefined)).toBeUndefined();
    expect(familyDisagreement('sim-x (SIMULATED)', 'anything')).toBeUndefined();
    expect(familyDisagreement('gpt-4o', 'anthropic')).toBe('id "gpt-4o" reads as family openai (prefix gpt-, o1, o3, o4, chatgpt), but family "anthropic" is declared; kept as declared: correct it by hand if the id is right');
  });
});
