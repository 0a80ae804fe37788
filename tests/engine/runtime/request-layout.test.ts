import { describe, expect, it } from 'vitest';
import { briefSections, goalSections, openingMessages, promptFor, type ChatMessage } from '../../../engine/index.js';

type Task = Parameters<typeof briefSections>[1];

const OBJECTIVE = { context: 'SPEC: build sqlcsv, a CSV query tool.\n'.repeat(40), criteria: ['R01 parses', 'R02 queries'] };
const LAYOUT = 'src/sqlcsv/lexer.py exports tokenize(text) -> list[Token]\nsrc/sqlcsv/parser.py exports parse(tokens)';

const task = (over: Partial<Task>): Task => ({
  id: 'root.1', slug: 'lexer', goal: 'Write the lexer', depth: 1, kind: 'work', claims: ['R01 parses'], artifacts: ['src/sqlcsv/lexer.py'], criteria: [],
  layout: LAYOUT, prerequisiteListing: null, seedDirs: [], oversized: false, blockedBy: null, prerequisite: false, ...over,
});

const text = (m: ChatMessage) => ('content' in m ? (m.content ?? '') : '');
/** Characters two strings share from their start. */
const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
};
const opening = (layout: 'task-first' | 'shared-first', t: Task) =>
  openingMessages(layout, { role: 'planner', brief: briefSections({ objective: OBJECTIVE }, t), head: `## Task: plan\n\nYou are at depth ${t.depth}.\n\n`, tail: '\n\nReturn the plan.' });

describe('the request layout', () => {
  it('task-first is the request as transcript format 3 recorded it, byte for byte', () => {
    const [system, user] = opening('task-first', task({}));
    expect(system).toEqual({ role: 'system', content: promptFor('planner') });
    // The template the stages used before the layout existed (brief.ts at format 3).
    expect(user).toEqual({
      role: 'user',
      content:
        `## Task: plan\n\nYou are at depth 1.\n\n## Goal\nWrite the lexer\n\n## Objective (shared by every piece)\n${OBJECTIVE.context}\n\n` +
        `## Layout and interfaces you must use\n${LAYOUT}\n\n## Acceptance criteria this piece claims\n- R01 parses\n\n## Artifacts it declares\n- src/sqlcsv/lexer.py\n\nReturn the plan.`,
    });
    const [, merger] = openingMessages('task-first', { role: 'merger', brief: goalSections(task({}), `## Layout and interfaces\n${LAYOUT}`), tail: '\n\n## Children\n- x' });
    expect(merger).toEqual({ role: 'user', content: `## Goal\nWrite the lexer\n\n## Layout and interfaces\n${LAYOUT}\n\n## Children\n- x` });
  });

  it('shared-first: two sessions of one role under one layout share the system message and the contract, and cacheBreak marks exactly that', () => {
    const a = opening('shared-first', task({}));
    const b = opening('shared-first', task({ id: 'root.2', goal: 'Write the parser', claims: ['R02 queries'], artifacts: ['src/sqlcsv/parser.py'] }));
    expect(a[0]).toEqual({ role: 'system', content: `${promptFor('planner')}\n\n## Objective (shared by every piece)\n${OBJECTIVE.context}`, cacheBreak: text(a[0]).length });
    expect(b[0]).toEqual(a[0]);
    expect(text(a[1]).startsWith(`## Layout and interfaces you must use\n${LAYOUT}\n\n## Task: plan\n`)).toBe(true);
    const shared = commonPrefix(text(a[1]), text(b[1]));
    const mark = a[1].role === 'user' ? a[1].cacheBreak : undefined;
    expect(mark).toBe(`## Layout and interfaces you must use\n${LAYOUT}\n\n`.length);
    // The mark never claims more than the two really share.
    expect(shared).toBeGreaterThanOrEqual(mark!);
    // The same two sessions in the old layout part at the goal, a few characters in.
    const old = [opening('task-first', task({})), opening('task-first', task({ id: 'root.2', goal: 'Write the parser' }))];
    expect(commonPrefix(text(old[0]![1]), text(old[1]![1]))).toBeLessThan(60);
    expect(shared).toBeGreaterThan(LAYOUT.length);
  });

  it('shared-first without an objective or a contract marks the system message alone, and says the same', () => {
    const [system, user] = openingMessages('shared-first', { role: 'drift_judge', brief: goalSections(task({})), tail: '\n\n## Trigger\nt' });
    expect(system).toEqual({ role: 'system', content: promptFor('drift_judge'), cacheBreak: promptFor('drift_judge').length });
    expect(user).toEqual({ role: 'user', content: '## Goal\nWrite the lexer\n\n## Trigger\nt' });
    const root = briefSections({ objective: OBJECTIVE }, task({ layout: null }));
    expect(root.contract).toBeNull();
    const [, first] = openingMessages('shared-first', { role: 'checker', brief: root, head: '## Task: write checks\n\n' });
    expect(first.role === 'user' && first.cacheBreak).toBeUndefined();
    expect(text(first).startsWith('## Task: write checks\n\n## Goal\n')).toBe(true);
  });
});
