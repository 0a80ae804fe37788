import { describe, expect, it } from 'vitest';
import { repairLoop, type RepairRound } from '../../../engine/index.js';

const round = (score: number, accepted = false): RepairRound<number> => ({ value: score, score, accepted, independent: true, findings: [`score ${score}`] });

describe('repairLoop', () => {
  it('stops on accept', async () => {
    const out = await repairLoop({ maxAttempts: 5, budgetLeft: () => true, attempt: async (i) => round(i, i === 2) });
    expect([out.stop, out.attempts]).toEqual(['accept', 2]);
  });

  it('stops at max attempts', async () => {
    const out = await repairLoop({ maxAttempts: 3, budgetLeft: () => true, attempt: async (i) => round(i) });
    expect([out.stop, out.attempts]).toEqual(['max_attempts', 3]);
  });

  it('stops when the budget is spent', async () => {
    let spent = 0;
    const out = await repairLoop({ maxAttempts: 5, budgetLeft: () => spent < 2, attempt: async (i) => (spent++, round(i)) });
    expect([out.stop, out.attempts]).toEqual(['budget', 2]);
  });

  it('stops when two consecutive attempts score the same, and feeds findings forward', async () => {
    const seen: string[][] = [];
    const out = await repairLoop({ maxAttempts: 5, budgetLeft: () => true, attempt: async (i, findings) => (seen.push(findings), round(i === 1 ? 1 : 2)) });
    expect([out.stop, out.attempts]).toEqual(['no_progress', 3]);
    expect(seen).toEqual([[], ['score 1'], ['score 2']]);
  });
});
