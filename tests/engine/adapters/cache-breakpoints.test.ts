import { afterEach, describe, expect, it } from 'vitest';
import { MAX_BREAKPOINTS, OpenAIModelClient, contentWithBreakpoints, type ChatMessage, type ModelRequest } from '../../../engine/index.js';
import { ChatServer, completion } from '../../support/chat-server.js';
import { FakeClock } from '../../support/fake-clock.js';

const messages: ChatMessage[] = [
  { role: 'system', content: 'ROLE PROMPT + SPEC', cacheBreak: 'ROLE PROMPT + SPEC'.length },
  { role: 'user', content: 'LAYOUT\n\n## Task: plan', cacheBreak: 'LAYOUT\n\n'.length },
  { role: 'assistant', content: 'ok' },
  { role: 'user', content: 'again' },
];
const request: ModelRequest = { model: 'm', role: 'planner', sessionId: 's', nodeId: 'root', attempt: 1, messages };

let server: ChatServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

async function sent(cacheBreakpoints: boolean | undefined): Promise<unknown> {
  server = new ChatServer(() => ({ body: completion({ content: '{}', usage: { prompt_tokens: 10, completion_tokens: 1 } }) }));
  const baseURL = await server.start();
  const client = new OpenAIModelClient({ baseURL, apiKey: 'test-key-000000', maxRetries: 0, clock: new FakeClock(), ...(cacheBreakpoints === undefined ? {} : { cacheBreakpoints }) });
  await client.complete(request);
  return server.requests[0]!.body.messages;
}

describe('cache breakpoints', () => {
  it('with cache_breakpoints, the repeated part of the system and first user message ends in cache_control, over HTTP', async () => {
    expect(await sent(true)).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'ROLE PROMPT + SPEC', cache_control: { type: 'ephemeral' } }] },
      { role: 'user', content: [{ type: 'text', text: 'LAYOUT\n\n', cache_control: { type: 'ephemeral' } }, { type: 'text', text: '## Task: plan' }] },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('without it (the default), every message goes as a plain string', async () => {
    expect(await sent(undefined)).toEqual([
      { role: 'system', content: 'ROLE PROMPT + SPEC' },
      { role: 'user', content: 'LAYOUT\n\n## Task: plan' },
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('marks at most MAX_BREAKPOINTS messages, the earliest, and never a break outside the text', () => {
    const many: ChatMessage[] = Array.from({ length: MAX_BREAKPOINTS + 2 }, (_, i) => ({ role: 'user', content: `m${i}`, cacheBreak: 1 }));
    const out = contentWithBreakpoints([...many, { role: 'user', content: 'ab', cacheBreak: 3 }, { role: 'system', content: 'ab', cacheBreak: 0 }]);
    expect(out.filter((c) => Array.isArray(c))).toHaveLength(MAX_BREAKPOINTS);
    expect(Array.isArray(out[0])).toBe(true);
    expect(out.slice(MAX_BREAKPOINTS)).toEqual([`m${MAX_BREAKPOINTS}`, `m${MAX_BREAKPOINTS + 1}`, 'ab', 'ab']);
    expect(contentWithBreakpoints([{ role: 'system', content: 'ab', cacheBreak: 3 }])).toEqual(['ab']);
  });
});
