import { describe, expect, it } from 'vitest';
import { runFiles } from '../../../harness/index.js';
import { mergeStory, reviewFields, type StoryAttempt } from '../../../site/src/lib/merge-story.js';

const { EVENT_VERSION, EngineEvent } = runFiles;

/**
 * A merge's story in words, from its events: what each review said, what the loop did with it,
 * and why it stopped. The events are the example run's (runs/example-sim), as recorded.
 */

const event = (e: Record<string, unknown>) => EngineEvent.parse({ version: EVENT_VERSION, ts: '2026-01-01T00:00:00.000Z', ...e });
const review = (attempt: number, kind: 'independent' | 'self', accept: boolean, findings: string[] = []) =>
  event({ type: 'merge_review', nodeId: 'root.1', attempt, kind, model: kind === 'self' ? 'sim-executor' : 'sim-reviewer', family: kind === 'self' ? 'sim-alpha' : 'sim-beta', independent: kind === 'independent', accept, findings, verdictUsed: kind === 'independent' });
const round = (attempt: number, accepted: boolean, independent: boolean, stop: string | null) => event({ type: 'repair_round', nodeId: 'root.1', attempt, accepted, independent, score: 3, stop });
const attempts = (events: ReturnType<typeof event>[]): StoryAttempt[] =>
  events.flatMap((e) => (e.type === 'merge_review' ? [{ ...e, repair: events.flatMap((r) => (r.type === 'repair_round' && r.attempt === e.attempt ? [{ accepted: r.accepted, stop: r.stop }] : []))[0] ?? null }] : []));

describe('a merge\'s story', () => {
  it('ungated: the self-review accepted twice, its verdict not used, and the loop stood at max_attempts (never "rejected by self-review")', () => {
    const events = [review(1, 'self', true), round(1, false, false, null), review(2, 'self', true), round(2, false, false, 'max_attempts')];
    const story = mergeStory(attempts(events), 'max_attempts')!;
    expect(story).toMatchInlineSnapshot(`"Self-review accepted (not used), repaired, self-review accepted (not used). The loop stopped because it had used every attempt it was allowed (max_attempts: 2): the merge of attempt 2 stood, never judged by anyone independent."`);
    expect(story).not.toContain('rejected');
    const fields = reviewFields(events, { nodeId: 'root.1', role: 'self_reviewer', attempt: 1 })!;
    expect(fields).toMatchObject({ verdict: 'accepted', kind: 'self', findings: [], verdictUsed: false });
    expect(fields.loop).toMatchInlineSnapshot(`"Attempt 1: accepted by the merger's own self-review (sim-executor); a self-review's verdict is not used, so the loop did not take it; the merger repaired it."`);
  });

  it('gated: rejected, repaired, rejected, and the rejected merge stood at max_attempts; each review session gets its verdict and findings', () => {
    const events = [review(1, 'independent', false, ['R17 broken', 'R35 broken']), round(1, false, true, null), review(2, 'independent', false, ['R12 broken']), round(2, false, true, 'max_attempts')];
    expect(mergeStory(attempts(events), 'max_attempts')).toMatchInlineSnapshot(`"Rejected, repaired, rejected. The loop stopped because it had used every attempt it was allowed (max_attempts: 2): the rejected merge of attempt 2 stood."`);
    const second = reviewFields(events, { nodeId: 'root.1', role: 'reviewer', attempt: 2 })!;
    expect(second).toMatchObject({ verdict: 'rejected', kind: 'independent', findings: ['R12 broken'], verdictUsed: true });
    expect(second.loop).toMatchInlineSnapshot(`"Attempt 2: rejected by the independent reviewer sim-reviewer with 1 finding; the loop stopped here (max_attempts) and this merge stood."`);
    // A session that reviews no merge, or a review of another attempt, gets no fields.
    expect(reviewFields(events, { nodeId: 'root.1', role: 'merger', attempt: 2 })).toBeNull();
    expect(reviewFields(events, { nodeId: 'root.1', role: 'reviewer', attempt: 3 })).toBeNull();
    expect(reviewFields(events, { nodeId: 'root.1', role: 'self_reviewer', attempt: 1 })).toBeNull();
  });

  it('an accepted repair says the merge was accepted and stood; no attempt, no story', () => {
    const events = [review(1, 'independent', false, ['x']), round(1, false, true, null), review(2, 'independent', true), round(2, true, true, 'accept')];
    expect(mergeStory(attempts(events), 'accept')).toBe('Rejected, repaired, accepted. The loop stopped because the merge was accepted: the merge of attempt 2 was accepted and stood.');
    expect(mergeStory([], null)).toBeNull();
  });
});
