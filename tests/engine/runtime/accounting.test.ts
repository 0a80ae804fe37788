import { describe, expect, it } from 'vitest';
import { Accounting, BudgetExhaustedError, NodeAccount } from '../../../engine/index.js';

const usage = (tokens: number) => ({ inputTokens: tokens, outputTokens: 0, cachedTokens: 0 });
const tick = () => new Promise((r) => setTimeout(r, Math.random() * 5));

describe('Accounting', () => {
  it('charges interleaved concurrent siblings each exactly their own calls, and every ancestor all of them', async () => {
    const accounting = new Accounting();
    const root = new NodeAccount('root', 1_000_000);
    const a = root.child('a', 10_000);
    const b = root.child('b', 10_000);
    const spend = (acct: NodeAccount, tokens: number) =>
      accounting.run(acct, async () => {
        for (let i = 0; i < 20; i++) {
          await tick();
          accounting.charge(usage(tokens), 0);
        }
      });
    await Promise.all([spend(a, 7), spend(b, 100)]);
    expect([a.spent, b.spent, root.spent]).toEqual([140, 2000, 2140]);
  });

  it('refuses a call once the node or any ancestor is spent, and siblings keep their share', async () => {
    const accounting = new Accounting();
    const root = new NodeAccount('root', 1000);
    const [x, y] = [root.child('x', root.childShares(2)), root.child('y', root.childShares(2))];
    expect([x.allocation, y.allocation]).toEqual([425, 425]);
    await accounting.run(x, async () => {
      accounting.charge(usage(425), 0);
      expect(() => accounting.assertRoom()).toThrow(BudgetExhaustedError);
    });
    await accounting.run(y, async () => expect(() => accounting.assertRoom()).not.toThrow());
  });

  it('caps a phase at a share of the node, cumulatively across attempts', async () => {
    const accounting = new Accounting();
    const node = new NodeAccount('n', 1000);
    await accounting.run(node, async () => {
      await accounting.withPhaseCap('work', 0.6, async () => accounting.charge(usage(400), 0));
      await accounting.withPhaseCap('work', 0.6, async () => {
        accounting.charge(usage(250), 0);
        expect(() => accounting.assertRoom()).toThrowErrorMatchingInlineSnapshot(`[BudgetExhaustedError: budget refused a call for node n: work spent 650 of its 600 token cap]`);
      });
      // Outside the phase the node still has room for verification.
      expect(() => accounting.assertRoom()).not.toThrow();
    });
  });

  it('records contributors on the node and its ancestors', async () => {
    const accounting = new Accounting();
    const root = new NodeAccount('root', 1000);
    const leaf = root.child('leaf', 100);
    await accounting.run(leaf, async () => accounting.recordContributor('alpha-m', 'alpha'));
    expect([...root.contributorFamilies]).toEqual(['alpha']);
  });
});
