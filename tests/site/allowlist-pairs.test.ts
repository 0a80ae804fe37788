import { describe, expect, it } from 'vitest';
import { admitted } from '../../site/scripts/allowlist.js';

/** The pair-level events file (the shared build both cells' pages read) is published; nothing else under pairs/ is. */
describe('the allowlist and a pair\'s events file', () => {
  it('admits pairs/PAIR/events.jsonl as events, and nothing else under pairs/', () => {
    expect(admitted('pairs/cap2-rep1/events.jsonl')).toBe('events');
    expect(admitted('pairs/cap12-rep3/events.jsonl')).toBe('events');
    for (const other of ['pairs/cap2-rep1-gated/events.jsonl', 'pairs/cap0-rep1/events.jsonl', 'pairs/cap2-rep1/journal.jsonl', 'pairs/cap2-rep1/x/events.jsonl', 'pairs/events.jsonl', 'pairs/cap2-rep1/../events.jsonl', 'pairs/cap2-rep1/.env']) {
      expect(admitted(other), other).toBeNull();
    }
  });
});
