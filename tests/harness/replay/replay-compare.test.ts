import { describe, expect, it } from 'vitest';
import { canonicalForm, treeDifference } from '../../../harness/testing.js';

/** The canonical form `harness replay` compares a recording and its replay in, and how a difference is named. */

const node = (id: string, output: string, children: unknown[] = [], workspace = `/rec/run/cells/cap1-rep1-gated/work/${id}/ws`) => ({
  id, verdict: 'DONE', workspace, checkResults: [{ id: 'own-tests', passed: true, output }], children,
});

describe('canonicalForm', () => {
  it('forgives only timings, ids, times and where the work folder is: the same tree recorded and replayed compares equal', () => {
    const recorded = { ...node('root', '80 passed in 0.38s\n', [node('root.1', 'container 3f9a0c1d2e4b5a69 at 2026-11-30T18:20:56.636Z')]), elapsedMs: 812 };
    const replayed = {
      ...node('root', '80 passed in 1.02s\n', [node('root.1', 'container 0123456789abcdef at 2026-12-01T09:00:00.000Z', [], '/tmp/rdh-replay-x/cells/cap1-rep1-gated/work/root.1/ws')], '/tmp/rdh-replay-x/cells/cap1-rep1-gated/work/root/ws'),
      elapsedMs: 95,
    };
    expect(treeDifference(canonicalForm(recorded), canonicalForm(replayed))).toBeUndefined();
    expect(canonicalForm(recorded)).toMatchObject({ workspace: '<work>/root/ws', checkResults: [{ output: '80 passed in <duration>\n' }] });
  });

  it('reads fractions to 12 significant digits: a sum in another order is the same figure, another cent is not', () => {
    expect(treeDifference(canonicalForm({ costUsd: 0.1969770000000001 }), canonicalForm({ costUsd: 0.19697700000000012 }))).toBeUndefined();
    expect(treeDifference(canonicalForm({ costUsd: 0.19697 }), canonicalForm({ costUsd: 0.20697 }))).toMatchObject({ path: 'costUsd' });
  });

  it('forgives nothing else: another check result is a difference at its node, named by check id', () => {
    const recorded = node('root', 'ok', [node('root.1', '80 passed'), node('root.2', '80 passed')]);
    const replayed = node('root', 'ok', [node('root.1', '80 passed'), node('root.2', '79 passed, 1 failed')]);
    expect(treeDifference(canonicalForm(recorded), canonicalForm(replayed))).toMatchInlineSnapshot(`
      {
        "expected": "80 passed",
        "got": "79 passed, 1 failed",
        "node": "root.2",
        "path": "checkResults.own-tests.output",
      }
    `);
  });

  it('names a missing child by count, and a difference outside a node tree by its path', () => {
    expect(treeDifference(canonicalForm(node('root', 'ok', [node('root.1', 'a'), node('root.2', 'b')])), canonicalForm(node('root', 'ok', [node('root.1', 'a')])))).toMatchInlineSnapshot(`
      {
        "expected": "2 item(s)",
        "got": "1 item(s)",
        "node": "root",
        "path": "children",
      }
    `);
    expect(treeDifference({ requirements: [{ id: 'R03', pass: true }] }, { requirements: [{ id: 'R03', pass: false }] })).toMatchInlineSnapshot(`
      {
        "expected": true,
        "got": false,
        "path": "requirements.R03.pass",
      }
    `);
  });
});
