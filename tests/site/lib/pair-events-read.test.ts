import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRun } from '../../../site/src/lib/site-data.js';
import type { NodeView } from '../../../site/src/lib/node-tree.js';

/**
 * Both cells of a pair read its events file (the shared build): the committed example, whose
 * pairs share their build, read as the site reads it. Counts come from the report and the files.
 */
const EXAMPLE = path.resolve(import.meta.dirname, '..', '..', '..', 'runs', 'example-sim');
const all = (n: NodeView): NodeView[] => [n, ...n.children.flatMap(all)];

describe('the pair\'s events file on the cell pages', () => {
  it('gives both cells the shared build: its sessions linked from the partner, its verdicts and plans, counts that add up to the report\'s', async () => {
    const data = await mkdtemp(path.join(tmpdir(), 'rdh-pair-read-'));
    await cp(EXAMPLE, path.join(data, 'runs', 'example-sim'), { recursive: true, filter: (f) => !f.endsWith('journal.jsonl') });
    const run = await readRun(data, 'example-sim');
    const ungated = run.cells.find((c) => c.id === 'cap2-rep1-ungated')!;
    const { shared, own, reported, sharedUnder } = ungated.sessionCounts;
    expect(shared).toBeGreaterThan(0);
    expect(shared + own).toBe(reported);
    expect(sharedUnder).toEqual(['cap2-rep1-gated']);
    const nodes = all(ungated.tree!.root);
    // A leaf of the shared build: its plan and verdict (pair file), its sessions under the gated cell.
    const leaf = nodes.find((n) => n.mode === 'leaf')!;
    expect(leaf.plan).not.toBeNull();
    expect(leaf.verdicts.length).toBeGreaterThan(0);
    expect(leaf.sessions.length).toBeGreaterThan(0);
    expect(leaf.sessions.every((s) => s.shared && s.cell === 'cap2-rep1-gated')).toBe(true);
    // Without the pair's file the cell has only its own arm's story.
    await rm(path.join(data, 'runs', 'example-sim', 'pairs'), { recursive: true });
    const bare = (await readRun(data, 'example-sim')).cells.find((c) => c.id === 'cap2-rep1-ungated')!;
    expect(bare.sessionCounts.shared).toBe(0);
    expect(all(bare.tree!.root).find((n) => n.id === leaf.id)!.plan).toBeNull();
  });
});
