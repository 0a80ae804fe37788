import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_DOCKER } from '../../support/docker.js';
import { runSolve } from '../../support/engine-harness.js';
import { call, helloHandlers, json, loggingCheckHandlers, taskOf } from '../../support/scripted-model.js';

const ONE_FILE_GOAL = 'Write hello.py that prints hello';

describe.skipIf(!HAS_DOCKER)('a leaf, end to end against a real sandbox', () => {
  it('reaches DONE only after a family that contributed nothing re-ran every check', async () => {
    const { root, model, events } = await runSolve({ goal: ONE_FILE_GOAL, handlers: helloHandlers() });
    expect(root.verdict).toBe('DONE');
    expect(root.checkResults.map((c) => c.passed)).toEqual([true, true, true]);
    expect(root.verifiedBy).toEqual(['beta']);
    expect(root.contributorFamilies).toEqual(['alpha']);
    expect(model.byRole('verifier').every((r) => r.model === 'beta-m')).toBe(true);
    // The engine re-ran the checks for the verifier, in a fresh container, after the worker's own run.
    expect(events.ofType('checks_run').map((e) => e.by)).toEqual(['verifier']);
    // The verifier holds read-only tools only, and the drift judge was never asked without a trigger.
    const verifierTools = new Set(model.byRole('verifier').flatMap((r) => (r.tools ?? []).map((t) => t.name)));
    expect([...verifierTools].sort()).toEqual(['list_files', 'read_file', 'run_checks']);
    expect(model.byRole('drift_judge')).toHaveLength(0);
  });

  it('asks the drift judge when the worker writes a file no check mentions, and ends a drifting attempt', async () => {
    const { root, model, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({
        worker: (_req, turn) =>
          [
            { toolCalls: [call('write_file', { path: 'poem.txt', content: 'roses are red\n' })] },
            { toolCalls: [call('finish', { summary: 'wrote a poem' })] },
          ][Math.min(turn, 1)]!,
        drift_judge: () => json({ drift: 9, impossible: false, reason: 'writing poetry instead of hello.py' }),
      }),
    });
    expect(model.byRole('drift_judge').length).toBeGreaterThan(0);
    expect(events.ofType('monitor_flag')[0]).toMatchObject({ kind: 'drift', detail: 'drift 9/10: writing poetry instead of hello.py' });
    expect(root.verdict).toBe('NOT_DONE');
  });

  it('keeps the good check set when a rewrite comes back unreadable', async () => {
    let checkerCalls = 0;
    let metaCalls = 0;
    const { root, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({
        checker: (req, turn) => (++checkerCalls === 1 ? helloHandlers().checker!(req, turn) : { content: '{"checks": [' }),
        verifier: (req) =>
          taskOf(req).startsWith('are the checks adequate')
            ? ++metaCalls === 1
              ? json({ adequate: false, reason: 'could be stronger', missing: ['edge cases'] })
              : json({ adequate: true })
            : json({ verdict: 'DONE', findings: [] }),
      }),
    });
    expect(checkerCalls).toBe(3);
    expect(root.checks.map((c) => c.id)).toEqual(['prints-hello', 'exits-zero', 'has-test']);
    expect(events.ofType('checks_written').at(-1)!.checks.map((c) => c.id)).toEqual(['prints-hello', 'exits-zero', 'has-test']);
    expect(root.verdict).toBe('DONE');
  });

  it('never splits a goal that names exactly one file, and never asks the planner', async () => {
    const { root, model, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({ planner: () => json({ mode: 'split', assumptions: [], subtasks: [{ slug: 'a', goal: 'x' }, { slug: 'b', goal: 'y' }] }) }),
    });
    expect(root.mode).toBe('leaf');
    expect(root.children).toEqual([]);
    expect(model.byRole('planner')).toHaveLength(0);
    expect(events.ofType('node_planned')[0]!.forcedExecute).toMatchInlineSnapshot(`"one-file rule: the goal names exactly one file (hello.py), so it may not split"`);
  });

  it('rewrites a tautological and a malformed check before any work starts', async () => {
    let checkerCalls = 0;
    const { root, model, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({
        checker: () => {
          checkerCalls++;
          if (checkerCalls === 1) {
            return json({
              checks: [
                { id: 'taut', description: 'always true', command: 'test -d .' },
                { id: 'broken', description: 'bad python', command: 'python3 -c "import os if True else None"' },
                { id: 'prints-hello', description: 'prints hello', command: 'test "$(python3 hello.py)" = hello' },
              ],
            });
          }
          return json({
            checks: [
              { id: 'taut', description: 'file exists', command: 'test -f hello.py' },
              { id: 'broken', description: 'imports cleanly', command: 'python3 -c "import hello"' },
              { id: 'prints-hello', description: 'prints hello', command: 'test "$(python3 hello.py)" = hello' },
            ],
          });
        },
      }),
    });
    const falsified = events.ofType('check_falsified').map((e) => `${e.checkId}:${e.outcome}`);
    expect(falsified.slice(0, 3)).toEqual(['taut:tautology', 'broken:malformed', 'prints-hello:ok']);
    expect(falsified.slice(3)).toEqual(['taut:ok', 'broken:ok']);
    expect(events.ofType('checks_written').map((e) => `${e.revision}:${e.reason}`)).toEqual(['1:initial', '2:falsified']);
    // The worker only ever saw the rewritten checks.
    const firstWorker = model.byRole('worker')[0]!.messages[1]!;
    expect('content' in firstWorker && firstWorker.content).toContain('test -f hello.py');
    expect('content' in firstWorker && firstWorker.content).not.toContain('test -d .');
    expect(root.verdict).toBe('DONE');
  });

  it('forces a DONE verdict with a failing check to NOT_DONE, records the override, and retries with the failure prepended', async () => {
    const { root, model, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({
        // The worker writes the wrong output both times; the verifier says DONE anyway.
        worker: (_req, turn) =>
          [
            { toolCalls: [call('write_file', { path: 'hello.py', content: 'print("goodbye")\n' })] },
            { toolCalls: [call('finish', { summary: 'done, trust me' })] },
          ][Math.min(turn, 1)]!,
      }),
    });
    expect(root.verdict).toBe('NOT_DONE');
    expect(root.attempts).toBe(2);
    expect(root.overrides[0]).toMatchObject({ from: 'DONE', to: 'NOT_DONE', rule: 'failing_check' });
    expect(events.ofType('override')).toHaveLength(2);
    const retry = model.byRole('worker').find((r) => r.messages.some((m) => 'content' in m && m.content?.includes('Attempt 2')));
    expect(retry).toBeDefined();
    expect(JSON.stringify(retry!.messages)).toContain('check prints-hello failed');
    // Never shown the worker's claim.
    expect(JSON.stringify(model.byRole('verifier'))).not.toContain('trust me');
  });

  it('blocks DONE on a real NEEDS HUMAN question even with every check green, but not on "NEEDS HUMAN: none"', async () => {
    const withNone = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({}, ['NEEDS HUMAN: none']),
    });
    expect(withNone.root.verdict).toBe('DONE');
    expect(withNone.root.openQuestions).toEqual([]);

    const withQuestion = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({}, ['NEEDS HUMAN: which greeting does the admin want?']),
    });
    expect(withQuestion.root.checkResults.every((c) => c.passed)).toBe(true);
    expect(withQuestion.root.verdict).toBe('NEEDS_HUMAN');
    expect(withQuestion.root.openQuestions).toEqual(['which greeting does the admin want?']);
  });

  it('rewrites inadequate checks once, re-verifies the same artifacts without new work, and says CHECKS_INADEQUATE the second time', async () => {
    let metaCalls = 0;
    const { root, model, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({
        verifier: (req) => {
          if (taskOf(req).startsWith('are the checks adequate')) {
            metaCalls++;
            return json({ adequate: false, reason: 'nothing checks the exact text', missing: ['exact output'] });
          }
          return json({ verdict: 'DONE', findings: [] });
        },
      }),
    });
    expect(metaCalls).toBe(2);
    expect(root.verdict).toBe('CHECKS_INADEQUATE');
    expect(root.checkRewrites).toBe(1);
    expect(events.ofType('checks_written').map((e) => e.reason)).toEqual(['initial', 'inadequate']);
    // The rewrite was judged on the same artifacts: no second work loop, and the settled verdict stopped retries.
    expect(new Set(model.byRole('worker').map((r) => r.sessionId))).toEqual(new Set(['root/worker/1']));
    expect(root.attempts).toBe(1);
  });
});

describe.skipIf(!HAS_DOCKER)('brakes in a leaf', () => {
  it('flags the third identical call as a loop and ends the attempt', async () => {
    const { root, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({ worker: () => ({ toolCalls: [call('list_files', {})] }) }),
    });
    const flags = events.ofType('monitor_flag');
    expect(flags[0]).toMatchObject({ kind: 'repeat', endsAttempt: true });
    expect(root.monitorFlags[0]).toMatch(/^repeat: list_files called 3 times/);
    expect(root.verdict).toBe('NOT_DONE');
  });

  it('sees what a shell command writes: five commands that each change the workspace are progress, not a stall', async () => {
    const { root, events } = await runSolve({
      goal: ONE_FILE_GOAL,
      handlers: helloHandlers({
        worker: (_req, turn) =>
          [
            { toolCalls: [call('run_command', { command: `printf 'print("hello")\\n' > hello.py` })] },
            { toolCalls: [call('run_command', { command: 'python3 hello.py > out.txt' })] },
            { toolCalls: [call('run_command', { command: `printf 'import subprocess\\n\\ndef test_hello():\\n    assert subprocess.run(["python3", "hello.py"], capture_output=True, text=True).stdout == "hello\\\\n"\\n' > test_hello.py` })] },
            { toolCalls: [call('run_command', { command: 'cp out.txt copy.txt' })] },
            { toolCalls: [call('run_command', { command: 'rm copy.txt' })] },
            { toolCalls: [call('finish', { summary: 'wrote hello.py and its test from the shell' })] },
          ][Math.min(turn, 5)]!,
      }),
    });
    expect(events.ofType('monitor_flag')).toEqual([]);
    expect(root.monitorFlags).toEqual([]);
    expect(root.verdict).toBe('DONE');
  });

  it('verifies in a detached copy: a check that writes a file passes there, and the judged tree stays as the worker left it', async () => {
    const { root } = await runSolve({ goal: ONE_FILE_GOAL, handlers: loggingCheckHandlers() });
    expect(root.checkResults.map((c) => `${c.id}:${c.passed}`)).toEqual(['writes-a-log:true', 'prints-hello:true', 'exits-zero:true']);
    expect(existsSync(path.join(root.workspace, '.check-log'))).toBe(false);
    expect(root.verdict).toBe('DONE');
  });
});
