import { describe, expect, it } from 'vitest';
import type { RecordedCall } from '../../../harness/index.js';
import { recordedLayout } from '../../../harness/testing.js';

const call = (version: 3 | 4): RecordedCall => ({
  call: 0,
  request: {
    type: 'request', version, ts: '2026-01-01T00:00:00.000Z', sessionId: 's', nodeId: 'root', role: 'planner', attempt: 1, model: 'm', call: 0,
    sent: 0, added: [], tools: [], json: true, maxTokens: null, shape: 'x',
  },
  messages: [],
  response: { content: '{}', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0 }, model: 'm', finishReason: 'stop' },
});

describe('the layout a replay rebuilds requests in', () => {
  it('is the one the transcripts were recorded in: format 3 task-first, 4 shared-first; none recorded, none chosen', () => {
    expect(recordedLayout([new Map([['a', [call(3)]], ['b', [call(3)]]])], 'runs/x')).toBe('task-first');
    expect(recordedLayout([new Map([['a', [call(4)]]])], 'runs/x')).toBe('shared-first');
    expect(recordedLayout([new Map()], 'runs/x')).toBeNull();
  });

  it('refuses a pair whose transcripts mix formats', () => {
    expect(() => recordedLayout([new Map([['a', [call(3)]], ['b', [call(4)]]])], 'runs/x')).toThrowError(/runs\/x: one pair's transcripts mix format versions 3 and 4/);
  });
});
