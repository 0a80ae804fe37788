import { describe, expect, it } from 'vitest';
import type { CallPermit, RateControl, RateControlStatus } from '../../../engine/index.js';
import { SWEEP_JOURNAL, type SweepEvent, type SweepEventInput } from '../../../harness/index.js';
import { SessionGate, controllersOf, createProgressDisplay, progressFrom, rateEvent, renderFrame, renderLine, renderSummary, startRateWatch, summarise, type ProgressSetup, type RateView } from '../../../harness/testing.js';
import { header, runStarted, stamped } from '../journal/sweep-fixtures.js';

/** FAKE controller: its status is whatever the test sets; it admits nothing (the watch only reads status). */
class FakeControl implements RateControl {
  constructor(public s: RateControlStatus) {}
  acquire(): Promise<CallPermit> {
    throw new Error('the watch never asks for a permit');
  }
  status(): RateControlStatus {
    return { ...this.s, perModel: { ...this.s.perModel } };
  }
}

const status = (o: Partial<RateControlStatus> = {}): RateControlStatus => ({
  provider: 'sim-http', limit: 8, min: 1, max: 128, inFlight: 3, waiting: 0, pacing: 'aimd', episodeSeen: false, episodes: 0, attempts: 0, rateLimited: 0, wantedCallMs: 0, perModel: {}, ...o,
});

/** A watch on an injected clock, its timer never firing within a test (polls are made by hand). */
function watching(controls: RateControl[], o: { gapMs?: number; recentMs?: number } = {}) {
  let now = 0;
  const written: SweepEventInput[] = [];
  const views: Array<readonly RateView[]> = [];
  const watch = startRateWatch(controls, {
    append: async (e) => void written.push(e), onView: (v) => views.push(v), now: () => now, pollMs: 3_600_000, journalGapMs: o.gapMs ?? 30_000, recentMs: o.recentMs ?? 60_000,
  });
  return { watch, written, views, at: (ms: number) => (now = ms) };
}

const limits = (events: SweepEventInput[]) => events.map((e) => (e.type === 'rate_control_changed' ? `${e.limit}${e.final ? ' final' : ''}` : e.type));

describe('the rate watch journals a controller coalesced', () => {
  it('writes the start, then at most one change per gap with the latest limit, and a final one at the end', async () => {
    const control = new FakeControl(status());
    const { watch, written, at } = watching([control]);
    await watch.poll(); // the start: the first poll (the one startRateWatch makes) already wrote it
    expect(limits(written)).toEqual(['8']);
    // Doubling, then two cuts, all within 30 s: nothing written yet.
    for (const [ms, limit] of [[2_000, 16], [4_000, 32], [9_000, 24], [14_000, 18]] as const) {
      at(ms);
      control.s = { ...control.s, limit, episodes: limit < 30 ? control.s.episodes + 1 : 0 };
      await watch.poll();
    }
    expect(limits(written)).toEqual(['8']);
    // Past the gap: one event, at the limit the burst came to, with the controller's own counts.
    at(31_000);
    control.s = { ...control.s, attempts: 400, rateLimited: 9 };
    await watch.poll();
    expect(limits(written)).toEqual(['8', '18']);
    expect(written[1]).toEqual(rateEvent(control.status(), false));
    expect(written[1]).toMatchObject({ episodes: 2, attempts: 400, rateLimited: 9 });
    // Long past the gap but unmoved: nothing.
    at(120_000);
    await watch.poll();
    expect(limits(written)).toEqual(['8', '18']);
    // A change of pacing alone is a change.
    at(121_000);
    control.s = { ...control.s, pacing: 'headers' };
    await watch.poll();
    expect(limits(written)).toEqual(['8', '18', '18']);
    await watch.stop();
    await watch.stop();
    expect(limits(written)).toEqual(['8', '18', '18', '18 final']);
    // Every event it writes is one the journal accepts.
    for (const [i, e] of stamped(written).entries()) expect(SWEEP_JOURNAL.schema.safeParse(e).success, `event ${i}`).toBe(true);
    // ...and one it refuses when the figures cannot be a controller's.
    expect(SWEEP_JOURNAL.schema.safeParse(stamped([rateEvent(status({ limit: 200 }), false)])[0]).success).toBe(false);
    expect(SWEEP_JOURNAL.schema.safeParse(stamped([rateEvent(status({ attempts: 1, rateLimited: 2 }), false)])[0]).success).toBe(false);
  });

  it('keeps one gap per controller, and writes nothing at all for a sweep without controllers', async () => {
    const [a, b] = [new FakeControl(status({ provider: 'a' })), new FakeControl(status({ provider: 'b' }))];
    const { watch, written, at } = watching([a, b]);
    at(40_000);
    a.s = { ...a.s, limit: 9 };
    await watch.poll();
    at(50_000);
    b.s = { ...b.s, limit: 4 };
    await watch.poll();
    await watch.stop();
    expect(written.map((e) => (e.type === 'rate_control_changed' ? `${e.provider} ${e.limit}${e.final ? ' final' : ''}` : ''))).toEqual(['a 8', 'b 8', 'a 9', 'b 4', 'a 9 final', 'b 4 final']);

    const none = watching([]);
    await none.watch.poll();
    await none.watch.stop();
    expect(none.written).toEqual([]);
    expect(none.views).toEqual([]);
  });

  it('gives the display the 429s of the recent window beside the overall ones', async () => {
    const control = new FakeControl(status({ attempts: 1000, rateLimited: 100 }));
    const { watch, views, at } = watching([control], { recentMs: 30_000 });
    for (let s = 10; s <= 90; s += 10) {
      at(s * 1000);
      // From 60 s on, no more 429s: the recent share falls to 0 while the overall one stays.
      control.s = { ...control.s, attempts: control.s.attempts + 100, rateLimited: control.s.rateLimited + (s < 60 ? 50 : 0) };
      await watch.poll();
    }
    const last = views.at(-1)![0]!;
    expect(last.recent).toEqual({ attempts: 300, rateLimited: 0, seconds: 30 });
    expect(views[3]![0]!.recent).toEqual({ attempts: 300, rateLimited: 150, seconds: 30 });
    expect(last.status.rateLimited).toBe(350);
    await watch.stop();
  });
});

const CELLS = ['cap1-rep1-gated'];
const setup: ProgressSetup = { title: 'smoke', simulated: true, cells: CELLS, manifestMaxSessions: 100 };

describe('what a person sees of the controllers', () => {
  const view: RateView = { status: status({ limit: 24, inFlight: 20, waiting: 5, episodes: 3, attempts: 2000, rateLimited: 40 }), recent: { attempts: 500, rateLimited: 20, seconds: 60 } };

  it('a terminal frame shows each controller: limit within bounds, in flight, pacing, 429s lately and overall', () => {
    const state = progressFrom(setup, stamped([header(), runStarted()]));
    const frame = renderFrame(state, { now: Date.parse('2026-01-02T03:00:05Z'), width: 200, rates: [view] });
    expect(frame.split('\n').filter((l) => l.startsWith('rate'))).toEqual([
      'rate      sim-http: limit 24 (1-128) · 20 in flight, 5 waiting · aimd · 429s 4.0% last 60s, 2.0% of 2,000 overall · 3 episodes',
    ]);
    // A fixed sweep passes no controllers: its frame is the one it always was.
    expect(renderFrame(state, { now: 0, width: 200 })).not.toMatch(/^rate/m);
  });

  it('on a terminal, redraws the frame with each poll of the controllers', () => {
    const chunks: string[] = [];
    const display = createProgressDisplay(setup, [], { stream: { write: (t: string) => chunks.push(t), columns: 200 }, isTty: true, redrawMs: 0 });
    expect(chunks.join('')).not.toContain('rate      ');
    display.rates([view]);
    display.stop();
    expect(chunks.join('')).toContain('rate      sim-http: limit 24 (1-128) · 20 in flight, 5 waiting');
  });

  it('off a terminal, prints one line per journaled change and nothing per poll', () => {
    const chunks: string[] = [];
    const display = createProgressDisplay(setup, [], { stream: { write: (t: string) => chunks.push(t) }, isTty: false });
    display.rates([view]);
    const [event] = stamped([rateEvent(view.status, true)], 3);
    display.apply(event!);
    display.stop();
    expect(chunks.join('')).toBe('[03:00:02] rate sim-http final: limit 24 (1-128), aimd, 3 episodes, 429s 40 of 2,000 (2.0%)\n');
    expect(renderLine(progressFrom(setup, []), event!)).toBe(chunks.join('').trim());
  });
});

describe('the run summary of the controllers', () => {
  it('takes each provider’s last event of this invocation from the journal, with its 429 share', () => {
    const events: SweepEvent[] = stamped([
      header(), runStarted(),
      rateEvent(status({ provider: 'old', limit: 50 }), true), // an earlier invocation's controller
      runStarted(),
      rateEvent(status({ limit: 8 }), false),
      rateEvent(status({ limit: 12, episodes: 2, attempts: 1200, rateLimited: 30 }), false),
      rateEvent(status({ provider: 'judge', limit: 4, pacing: 'headers' }), false),
      rateEvent(status({ limit: 10, episodes: 3, attempts: 2000, rateLimited: 50 }), true),
    ]);
    expect(controllersOf(events)).toEqual([
      { provider: 'sim-http', limit: 10, min: 1, max: 128, pacing: 'aimd', episodes: 3, attempts: 2000, rateLimited: 50, rateLimitedShare: 0.025 },
      { provider: 'judge', limit: 4, min: 1, max: 128, pacing: 'headers', episodes: 0, attempts: 0, rateLimited: 0, rateLimitedShare: 0 },
    ]);
    const manifest = { name: 'smoke' } as Parameters<typeof summarise>[1];
    const summary = summarise('/runs/x', manifest, events, new SessionGate(events, 100), [], { reason: 'completed', detail: 'done', unmeasured: [] }, true, []);
    expect(summary.controllers).toEqual(controllersOf(events));
    const text = renderSummary(summary, 'runs/x');
    expect(text).toContain('  rate controller  final limit  bounds  pacing   episodes  attempts       429s\n  sim-http                  10   1-128  aimd            3     2,000  50 (2.5%)\n  judge                      4   1-128  headers         0         0   0 (0.0%)\n');
    // A fixed sweep's journal holds no such events, and its summary no such table.
    const fixed = summarise('/runs/x', manifest, stamped([header(), runStarted()]), new SessionGate([], 100), [], { reason: 'completed', detail: 'done', unmeasured: [] }, true, []);
    expect(fixed.controllers).toBeUndefined();
    expect(renderSummary(fixed, 'runs/x')).not.toContain('rate controller');
  });
});
