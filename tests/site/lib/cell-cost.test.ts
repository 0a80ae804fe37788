import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRun } from '../../../site/src/lib/site-data.js';
import { writeRunFixture } from '../../support/run-fixture.js';

/**
 * A session's cost on the cell page has one definition: its charge events, and where none was
 * written (a run recorded without events), the report row's spend: a cell the report says cost
 * nothing shows $0 for each session, never "unknown".
 */
describe('a session\'s cost on the cell page', () => {
  it('is the report row\'s $0 when no charge event names the session, and its charges when they do', async () => {
    const data = await mkdtemp(path.join(tmpdir(), 'rdh-cell-cost-'));
    await writeRunFixture(path.join(data, 'runs', 'fx'));
    const charged = await readRun(data, 'fx');
    expect(charged.cells.flatMap((c) => c.sessions).every((s) => s.costUsd === 0)).toBe(true);
    for (const cell of await readdir(path.join(data, 'runs', 'fx', 'cells'))) await rm(path.join(data, 'runs', 'fx', 'cells', cell, 'events.jsonl'), { force: true });
    const run = await readRun(data, 'fx');
    const cells = run.cells.filter((c) => c.sessions.length > 0);
    expect(cells.length).toBeGreaterThan(0);
    for (const cell of cells) {
      const free = cell.row !== null && cell.row.spend.costUsd === 0 && cell.row.spend.unpricedSessions === 0;
      expect(cell.sessions.map((s) => s.costUsd), cell.id).toEqual(cell.sessions.map(() => (free ? 0 : null)));
    }
    expect(cells.some((c) => c.row?.spend.costUsd === 0)).toBe(true);
  });
});
