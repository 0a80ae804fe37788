import { describe, expect, it } from 'vitest';
import { type SweepEvent, type SweepEventInput } from '../../../harness/index.js';
import { createProgressDisplay, duration, eta, progressFrom, type ProgressSetup, reduceProgress, renderFrame, renderLine, withPaid } from '../../../harness/testing.js';
import { header, runStarted, sampleMeasurement, session, stamped } from '../journal/sweep-fixtures.js';

const CELLS = ['cap1-rep1-gated', 'cap1-rep1-ungated', 'cap2-rep1-gated', 'cap2-rep1-ungated'];
const setup: ProgressSetup = { title: 'smoke', simulated: true, cells: CELLS, manifestMaxSessions: 100 };
const at = (seq: number) => Date.parse('2026-01-02T03:00:00.000Z') + (seq - 1) * 1000;

/** A sweep one cell in: cell 1 measured, cell 2 running, six sessions finished. */
function midSweep(): SweepEventInput[] {
  return [
    header(),
    runStarted(),
    { type: 'cell_started', cellId: CELLS[0]! },
    ...session(CELLS[0]!, 1),
    ...session(CELLS[0]!, 2),
    ...session(CELLS[0]!, 3),
    { type: 'cell_finished', cellId: CELLS[0]!, outcome: { status: 'measured', result: sampleMeasurement(CELLS[0]!) } },
    { type: 'cell_started', cellId: CELLS[1]! },
    ...session(CELLS[1]!, 1),
    ...session(CELLS[1]!, 2),
    ...session(CELLS[1]!, 3),
    session(CELLS[1]!, 4)[0],
  ];
}

describe('progress frames (a terminal)', () => {
  it('show cells, sessions against the ceiling, tokens, spend and an ETA from the measured rate', () => {
    const events = stamped(midSweep());
    const state = withPaid(progressFrom({ ...setup, projectedSessions: 24 }, events), 0.3);
    expect(renderFrame(state, { now: at(events.length), width: 100 })).toMatchInlineSnapshot(`
      "smoke · SIMULATED providers (planted parameters)
      cells     1 measured · 1 running · 4 total
                running cap1-rep1-ungated
      sessions  ██░░░░░░░░░░░░░░░░░░░░░░  7 / 100 ceiling · 1 in flight
      tokens    input 240k (cached 180k) · output 24.0k
      spend     $0.30 paid
      eta       48s at 22.5 sessions/min (18 sessions projected to go)"
    `);
  });

  it('says it is still measuring rather than inventing a rate, and never prints NaN or infinity', () => {
    const events = stamped([header(), runStarted(), { type: 'cell_started', cellId: CELLS[0]! }]);
    const frame = renderFrame(progressFrom(setup, events), { now: at(2) });
    expect(frame).toMatchInlineSnapshot(`
      "smoke · SIMULATED providers (planted parameters)
      cells     0 measured · 1 running · 4 total
                running cap1-rep1-gated
      sessions  ░░░░░░░░░░░░░░░░░░░░░░░░  0 / 100 ceiling · 0 in flight
      tokens    input 0 (cached 0) · output 0
      spend     $0.00 paid
      eta       measuring (no session has finished yet)"
    `);
    expect(frame).not.toMatch(/NaN|Infinity/);
  });

  it('shows a lowered ceiling, unavailable and unmeasured cells, unpriced sessions and the stop', () => {
    const [started, finished] = session(CELLS[0]!, 1);
    const events = stamped([
      header(),
      runStarted(true),
      { type: 'ceiling_lowered', maxSessions: 2, manifestMaxSessions: 100 },
      { type: 'cell_started', cellId: CELLS[0]! },
      started,
      { ...finished, costUsd: null } as SweepEventInput,
      { type: 'cell_finished', cellId: CELLS[0]!, outcome: { status: 'unavailable', reason: 'provider', detail: 'model x is unavailable: 503\u001b[2J' } },
      { type: 'cell_finished', cellId: CELLS[1]!, outcome: { status: 'unmeasured', reason: 'ceiling' } },
      { type: 'sweep_stopped', reason: 'ceiling', detail: 'the session ceiling is reached', unmeasured: [CELLS[1]!, CELLS[2]!, CELLS[3]!] },
    ]);
    expect(renderFrame(progressFrom({ ...setup, simulated: false }, events), { now: at(events.length), width: 200 })).toMatchInlineSnapshot(`
      "smoke
      cells     0 measured · 0 running · 4 total (1 unavailable, 1 unmeasured)
      sessions  ████████████░░░░░░░░░░░░  1 / 2 ceiling (lowered from 100) · 0 in flight
      tokens    input 40.0k (cached 30.0k) · output 4.00k
      spend     $0.00 paid + 1 unpriced sessions
      stopped   ceiling: the session ceiling is reached"
    `);
  });

  it('cuts lines to the terminal width, so nothing wraps', () => {
    const frame = renderFrame(progressFrom(setup, stamped(midSweep())), { now: at(20), width: 40 });
    for (const line of frame.split('\n')) expect(line.length).toBeLessThan(40);
  });

  it('says finished, not stopped, when every cell was recorded', () => {
    const events = stamped([header(), runStarted(), { type: 'sweep_stopped', reason: 'completed', detail: 'every cell was recorded', unmeasured: [] }]);
    const state = progressFrom(setup, events);
    expect(renderFrame(state, { now: at(3) }).split('\n').at(-1)).toBe('finished  every cell was recorded');
    expect(renderLine(state, events[2]!)).toBe('[03:00:02] sweep finished: every cell was recorded');
  });

  it('bases the ETA on the projection while it lasts, then on the room under the ceiling, and says which', () => {
    const events = stamped(midSweep());
    const now = at(events.length);
    expect(eta(progressFrom({ ...setup, projectedSessions: 24 }, events), now)).toBe('48s at 22.5 sessions/min (18 sessions projected to go)');
    expect(eta(progressFrom(setup, events), now)).toBe('4m 11s at 22.5 sessions/min (94 sessions left under the ceiling)');
    expect(eta(progressFrom({ ...setup, projectedSessions: 5 }, events), now)).toBe('4m 11s at 22.5 sessions/min (94 sessions left under the ceiling; the projection is used up)');
    const allDone = stamped([...midSweep(), ...CELLS.map((cellId): SweepEventInput => ({ type: 'cell_finished', cellId, outcome: { status: 'measured', result: sampleMeasurement(cellId) } }))]);
    expect(eta(progressFrom(setup, allDone), now)).toBe('finishing (22.5 sessions/min)');
  });

  it('formats spans from seconds to hours', () => {
    expect([4_000, 187_000, 7_500_000, 400 * 3_600_000].map(duration)).toEqual(['4s', '3m 07s', '2h 05m', 'over 99h']);
  });
});

describe('progress lines (CI, a pipe)', () => {
  it('print one plain line per cell start and end, and one when the sweep stops; the paid figure as the gate gives it; a long cause told once, then referenced; unavailable cells not counted as done', () => {
    const cause = 'a provider failed for its whole patience (patience_s): node root.1 was stopped by its provider (model_unavailable, y)';
    const events: SweepEvent[] = stamped([
      ...midSweep(),
      ...session(CELLS[1]!, 4).slice(1),
      { type: 'cell_finished', cellId: CELLS[1]!, outcome: { status: 'unavailable', reason: 'provider', detail: cause } },
      { type: 'cell_finished', cellId: CELLS[2]!, outcome: { status: 'unavailable', reason: 'provider', detail: cause } },
      { type: 'sweep_stopped', reason: 'unreachable', detail: `the sweep stopped (${cause})`, unmeasured: [CELLS[3]!] },
    ]);
    let state = progressFrom(setup, []);
    const lines: string[] = [];
    for (const [i, event] of events.entries()) {
      // The shell sets the gate's paid figure before each line: every live call of every invocation, once.
      state = withPaid(reduceProgress(state, event), i / 100);
      const line = renderLine(state, event);
      if (line !== undefined) lines.push(line);
    }
    expect(lines).toMatchInlineSnapshot(`
      [
        "[03:00:02] cap1-rep1-gated started (cell 1 of 4) · 0/100 sessions, $0.02 paid",
        "[03:00:09] cap1-rep1-gated measured · 1 of 4 measured · 3/100 sessions, $0.09 paid",
        "[03:00:10] cap1-rep1-ungated started (cell 2 of 4) · 3/100 sessions, $0.10 paid",
        "[03:00:19] cap1-rep1-ungated unavailable (provider: a provider failed for its whole patience (patience_s): node root.1 was stopped by its provider (model_unavailable, y)) · 1 of 4 measured · 7/100 sessions, $0.19 paid",
        "[03:00:20] cap2-rep1-gated unavailable (provider: the cause given for cap1-rep1-ungated) · 1 of 4 measured · 7/100 sessions, $0.20 paid",
        "[03:00:21] sweep stopped (unreachable): the sweep stopped (the cause given for cap1-rep1-ungated); unmeasured: cap2-rep1-ungated",
      ]
    `);
  });
});

describe('the progress display shell', () => {
  const stream = () => {
    const chunks: string[] = [];
    return { chunks, columns: 100, write: (text: string) => (chunks.push(text), true) };
  };

  it('off a terminal, writes the plain lines and nothing else, with the paid figure it is given (never a sum of sessions)', () => {
    const out = stream();
    let paid = 0.25;
    const display = createProgressDisplay(setup, [], { stream: out, isTty: false, paidUsd: () => paid });
    for (const event of stamped(midSweep())) {
      display.apply(event);
      paid += 0.01;
    }
    display.stop();
    expect(out.chunks.join('')).toBe(
      '[03:00:02] cap1-rep1-gated started (cell 1 of 4) · 0/100 sessions, $0.27 paid\n' +
        '[03:00:09] cap1-rep1-gated measured · 1 of 4 measured · 3/100 sessions, $0.34 paid\n' +
        '[03:00:10] cap1-rep1-ungated started (cell 2 of 4) · 3/100 sessions, $0.35 paid\n',
    );
  });

  it('on a terminal, redraws one block in place, starting from the history a resume read', () => {
    const out = stream();
    const history = stamped(midSweep());
    let now = at(history.length);
    const display = createProgressDisplay(setup, history, { stream: out, isTty: true, now: () => now, redrawMs: 0 });
    const [, finished] = session(CELLS[1]!, 4);
    now += 1000;
    display.apply(stamped([finished], history.length + 1)[0]!);
    display.stop();
    const text = out.chunks.join('');
    // log-update erases the previous frame's lines before drawing the next one.
    expect(text).toContain('\u001b[2K');
    expect(text).toContain('7 / 100 ceiling · 1 in flight');
    expect(text).toContain('7 / 100 ceiling · 0 in flight');
    expect(display.state.run.finished).toBe(7);
  });
});
