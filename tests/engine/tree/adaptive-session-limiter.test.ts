import { describe, expect, it } from 'vitest';
import { adaptiveSessionLimiter, createRateController, fixedRateControl, flatten, type RateControl } from '../../../engine/index.js';
import { runSolve } from '../../support/engine-harness.js';
import { SessionGauge } from '../../support/session-gauge.js';
import { splitCommands, splitHandlers } from '../../support/split-script.js';
import { VirtualClock } from '../../support/virtual-clock.js';

/**
 * `n` sessions, each `turns` times: one model call of `callMs` under `control`, then a tool of
 * `toolMs` (the session holds its slot meanwhile). Returns the most sessions seen in flight.
 */
async function sessions(o: { clock: VirtualClock; control: RateControl; limiter: ReturnType<typeof adaptiveSessionLimiter>; n: number; turns: number; callMs: number; toolMs: number; untilMs: number }) {
  let running = 0;
  let peak = 0;
  const allowed: number[] = [];
  const one = () =>
    o.limiter.run(async () => {
      peak = Math.max(peak, ++running);
      for (let t = 0; t < o.turns; t++) {
        const permit = await o.control.acquire('m', 10);
        await o.clock.sleep(o.callMs);
        permit.release({ outcome: 'answered' });
        await o.clock.sleep(o.toolMs);
      }
      running--;
    });
  const done = Promise.all(Array.from({ length: o.n }, one));
  await Promise.all([done, o.clock.runUntil(o.untilMs, () => allowed.push(o.limiter.status().allowed))]);
  return { peak, allowed };
}

describe('the adaptive session limiter', () => {
  it('admits sessions in proportion to the calls allowed and the measured duty cycle (half the time in tools: twice the limit)', async () => {
    const clock = new VirtualClock();
    const control = fixedRateControl(10, { clock });
    const limiter = adaptiveSessionLimiter({ controls: [control], hostCapacity: 100, clock });
    const { peak, allowed } = await sessions({ clock, control, limiter, n: 200, turns: 20, callMs: 1000, toolMs: 1000, untilMs: 3_600_000 });
    // Before it is measured it admits the limit (duty 1); measured at about 0.5 it admits about 20.
    expect(allowed[0]).toBe(10);
    expect(peak).toBeGreaterThanOrEqual(19);
    expect(peak).toBeLessThanOrEqual(22);
    expect(limiter.status()).toMatchObject({ running: 0, queued: 0 });
    expect(limiter.status().dutyCycle).toBeGreaterThan(0.4);
    expect(limiter.status().dutyCycle).toBeLessThan(0.6);
  });

  it('never admits more than the hosts take, however many calls are allowed', async () => {
    const clock = new VirtualClock();
    const control = fixedRateControl(50, { clock });
    const limiter = adaptiveSessionLimiter({ controls: [control], hostCapacity: 8, clock });
    const { peak } = await sessions({ clock, control, limiter, n: 60, turns: 5, callMs: 1000, toolMs: 3000, untilMs: 3_600_000 });
    expect(peak).toBe(8);
  });

  it('follows the controllers: as the limit grows, more sessions are admitted', async () => {
    const clock = new VirtualClock();
    const control = createRateController({ provider: 'p', min: 2, start: 2, max: 32, clock });
    const limiter = adaptiveSessionLimiter({ controls: [control], hostCapacity: 1000, clock });
    const { peak, allowed } = await sessions({ clock, control, limiter, n: 300, turns: 10, callMs: 1000, toolMs: 1000, untilMs: 3_600_000 });
    expect(allowed[0]).toBe(2);
    expect(control.status().limit).toBe(32);
    // About 32 / 0.5 once the limit is at its max.
    expect(peak).toBeGreaterThanOrEqual(60);
    expect(peak).toBeLessThanOrEqual(70);
  });

  it('sessions waiting at the controller count as wanting a call, so admission does not outrun the limit', async () => {
    const clock = new VirtualClock();
    const control = fixedRateControl(4, { clock });
    // Told to start far above what the limit serves: the queue at the controller brings it back.
    const limiter = adaptiveSessionLimiter({ controls: [control], hostCapacity: 200, clock, initial: 100 });
    await sessions({ clock, control, limiter, n: 400, turns: 4, callMs: 1000, toolMs: 1000, untilMs: 3_600_000 });
    expect(limiter.status().allowed).toBeLessThanOrEqual(10);
  });

  it('never deadlocks at one call and one host: a 4 x 4 tree at depth 2 completes with one session at a time', async () => {
    const SLUGS = ['a', 'b', 'c', 'd'];
    const gauge = new SessionGauge(10);
    const limiter = adaptiveSessionLimiter({ controls: [fixedRateControl(1)], hostCapacity: 1 });
    const { root } = await runSolve({
      goal: 'Build a tiny program that prints the values of its pieces',
      handlers: splitHandlers({ subtasks: SLUGS.map((slug) => ({ slug, claims: [`${slug} reads its input`, `${slug} prints its value`] })) }),
      maxDepth: 2, fake: splitCommands(SLUGS), extra: { limiter },
      clients: (m) => ({ alpha: gauge.wrap(m), beta: gauge.wrap(m) }),
    });
    expect(flatten(root).filter((n) => n.depth === 2)).toHaveLength(16);
    expect(gauge.peak).toBe(1);
    expect(limiter.status()).toMatchObject({ allowed: 1, running: 0, queued: 0 });
  });

  it('refuses a host capacity below one', () => {
    expect(() => adaptiveSessionLimiter({ controls: [], hostCapacity: 0 })).toThrow(/positive whole number/);
  });
});
