import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../harness/index.js';
import { endLine, exitOfEnd, resumeTable, sweepEnd, type SweepCounts } from '../../../harness/testing.js';

const all = (over: Partial<SweepCounts> = {}): SweepCounts => ({ staged: 4, measured: 4, transient: 0, permanent: 0, unmeasured: 0, notStarted: 0, ...over });

describe('how a sweep ends', () => {
  it('exits 0 only when every staged cell was measured', () => {
    expect(exitOfEnd(sweepEnd('completed', all()))).toBe(EXIT.ok);
    expect(exitOfEnd(sweepEnd('completed', all({ measured: 3, permanent: 1 })))).toBe(EXIT.cellsLost);
    expect(exitOfEnd(sweepEnd('completed', all({ measured: 3, transient: 1 })))).toBe(EXIT.cellsLost);
    expect(exitOfEnd(sweepEnd('ceiling', all({ measured: 2, unmeasured: 2 })))).toBe(EXIT.ceilingReached);
    // A stop names its own code first, whatever the counts.
    expect(exitOfEnd(sweepEnd('unreachable', all({ measured: 0, transient: 1, notStarted: 3 })))).toBe(EXIT.environment);
    expect(exitOfEnd(sweepEnd('fatal', all({ measured: 1, notStarted: 3 })))).toBe(EXIT.environment);
    expect(exitOfEnd(sweepEnd('quota', all({ measured: 1, permanent: 1, notStarted: 2 })))).toBe(EXIT.quotaExhausted);
    expect(exitOfEnd(sweepEnd('interrupted', all({ measured: 1, notStarted: 3 })))).toBe(EXIT.interrupted);
    expect([EXIT.ceilingReached, EXIT.cellsLost]).toEqual([8, 9]);
  });

  it('says in one line what happened, every count, and what the same command does', () => {
    const counts = all({ measured: 1, transient: 1, notStarted: 2 });
    expect(endLine('unreachable', counts, 'sim-http has been failing for 600 s', 'runs/t1')).toMatchInlineSnapshot(
      `"harness: the sweep stopped (a provider failed for its whole patience (patience_s): sim-http has been failing for 600 s); 1 of 4 staged cells measured (1 unavailable transient, 0 permanent, 0 unmeasured by a ceiling, 2 not started). The journal is intact: the same command continues once the provider answers: the cells it left unavailable (transient) are re-run, and only the calls after the failure are paid (runs/t1)."`,
    );
    expect(endLine('completed', all(), 'done', 'runs/t1')).toBeUndefined();
  });

  it('is the table docs/recording-and-resuming.md prints under "Resuming a sweep"', async () => {
    const readme = await readFile(path.resolve(import.meta.dirname, '../../../docs/recording-and-resuming.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Resuming a sweep'));
    // To update it, paste resumeTable()'s output into "Resuming a sweep" in docs/recording-and-resuming.md.
    expect(section).toContain(`\n${resumeTable()}\n`);
  });
});
