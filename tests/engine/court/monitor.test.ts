import { describe, expect, it } from 'vitest';
import { Monitor } from '../../../engine/index.js';

const step = (tool: string, args: unknown = {}, extra: { wroteFile?: boolean; checkPassCount?: number; writtenPaths?: string[] } = {}) => ({
  tool, args, wroteFile: extra.wroteFile ?? false, checkPassCount: extra.checkPassCount ?? null, writtenPaths: extra.writtenPaths,
});

describe('Monitor', () => {
  it('flags the third identical call, with arguments compared regardless of key order', () => {
    const m = new Monitor('');
    expect(m.observe(step('run_command', { command: 'ls', timeout_s: 5 })).flags).toEqual([]);
    expect(m.observe(step('run_command', { timeout_s: 5, command: 'ls' })).flags).toEqual([]);
    expect(m.observe(step('run_command', { command: 'ls', timeout_s: 5 })).flags).toMatchInlineSnapshot(`
      [
        {
          "detail": "run_command called 3 times in a row with the same arguments",
          "kind": "repeat",
        },
      ]
    `);
  });

  it('does not flag the third run_checks when the pass count moved', () => {
    const m = new Monitor('');
    m.observe(step('run_checks', {}, { checkPassCount: 5 }));
    m.observe(step('run_checks', {}, { checkPassCount: 5 }));
    expect(m.observe(step('run_checks', {}, { checkPassCount: 7 })).flags).toEqual([]);
  });

  it('flags A-B-A-B oscillation', () => {
    const m = new Monitor('');
    for (const t of ['a', 'b', 'a']) expect(m.observe(step(t)).flags).toEqual([]);
    expect(m.observe(step('b')).flags.map((f) => f.kind)).toEqual(['oscillation']);
  });

  it('flags a worker undoing its own writes with period 3, though every write changes the file', () => {
    const m = new Monitor('');
    const write = (v: string) => step('write_file', { path: 'x.py', content: v }, { wroteFile: true });
    for (const v of ['a', 'b', 'c', 'a', 'b']) expect(m.observe(write(v)).flags).toEqual([]);
    expect(m.observe(write('c')).flags.map((f) => f.kind)).toEqual(['oscillation']);
  });

  it('flags five steps with no file written and no change in checks passing', () => {
    const m = new Monitor('');
    const kinds = ['a', 'b', 'c', 'd', 'e'].map((t) => m.observe(step('read_file', { path: t })).flags.map((f) => f.kind));
    expect(kinds).toEqual([[], [], [], [], ['no_progress']]);
  });

  it('clears suspicion on genuine progress: a command that reaches a new workspace state each time is not a loop', () => {
    const m = new Monitor('');
    const run = (state: string) => ({ tool: 'run_command', args: { command: 'python3 gen.py' }, wroteFile: true, state });
    for (const state of ['s1', 's2', 's3', 's4']) expect(m.observe(run(state)).flags).toEqual([]);
    // Five quiet steps after the last progress, not nine since the start.
    for (let i = 0; i < 4; i++) expect(m.observe(step('read_file', { path: `f${i}` })).flags).toEqual([]);
  });

  it('does not count returning to a state seen before as progress', () => {
    const m = new Monitor('');
    m.begin('s0');
    const run = (state: string) => ({ tool: 'run_command', args: { command: 'git stash && git stash pop' }, wroteFile: true, state });
    expect(m.observe(run('s1')).flags).toEqual([]);
    expect(m.observe(run('s0')).flags).toEqual([]);
    expect(m.observe(run('s1')).flags.map((f) => f.kind)).toEqual(['repeat']);
  });

  it('leaves a flag to end the attempt by itself: the drift judge is not asked on a flag', () => {
    const m = new Monitor('');
    m.observe(step('list_files'));
    m.observe(step('list_files'));
    expect(m.observe(step('list_files'))).toMatchObject({ flags: [{ kind: 'repeat' }], consultDrift: null });
  });

  it('asks for the drift judge only on a trigger: a flag, a schedule, or a write no check mentions', () => {
    const m = new Monitor('python3 -m pytest tests/test_cli.py && python3 app.py');
    expect(m.observe(step('write_file', { path: 'app.py' }, { wroteFile: true, writtenPaths: ['app.py'] })).consultDrift).toBeNull();
    expect(m.observe(step('write_file', { path: 'notes/todo.txt' }, { wroteFile: true, writtenPaths: ['notes/todo.txt'] })).consultDrift).toBe(
      'wrote notes/todo.txt, which no check mentions',
    );
    for (let i = 0; i < 3; i++) m.observe(step('read_file', { path: `f${i}` }));
    expect(m.observe(step('read_file', { path: 'g' })).consultDrift).toBe('scheduled after 6 steps');
  });
});
