import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Accounting,
  MemoryEventSink,
  Monitor,
  ModelRouter,
  NodeAccount,
  WORK_TOOLS,
  runToolLoop,
  type CheckResult,
  type Clock,
  type ToolCall,
} from '../../../engine/index.js';
import { FakeSandboxProvider } from '../../support/fake-sandbox.js';
import { ScriptedModel, call, type Handler } from '../../support/scripted-model.js';

const clock: Clock = { now: () => new Date(0), sleep: async () => undefined };

async function loop(worker: Handler, options: { commands?: ConstructorParameters<typeof FakeSandboxProvider>[0]; monitor?: Monitor; maxTurns?: number; driftJudge?: (recent: string[], trigger: string) => Promise<{ drift: number; impossible: boolean; reason: string }>; runChecks?: () => Promise<CheckResult[]>; driftAllowance?: number } = {}) {
  const model = new ScriptedModel({ worker, drift_judge: () => ({ content: '{"drift": 0}' }) });
  const accounting = new Accounting();
  const events = new MemoryEventSink();
  const router = new ModelRouter({ roster: [{ name: 'a', model: 'a-m', endpoint: 'e', family: 'alpha', tier: 'medium' }], clients: { e: model }, accounting, events, clock });
  const sandbox = await new FakeSandboxProvider(options.commands ?? {}).create({ workspaceDir: await mkdtemp(path.join(tmpdir(), 'rdh-loop-')), runId: 't' });
  const result = await accounting.run(new NodeAccount('n', 1_000_000), () =>
    runToolLoop({
      router, role: 'worker', sessionId: 'n/worker/1', nodeId: 'n', messages: [{ role: 'user', content: 'go' }], tools: WORK_TOOLS,
      ctx: { sandbox, runChecks: options.runChecks ?? (async () => []) }, events, clock, maxTurns: options.maxTurns ?? 6, monitor: options.monitor, driftJudge: options.driftJudge, ...(options.driftAllowance !== undefined ? { driftAllowance: options.driftAllowance } : {}),
    }),
  );
  return { result, model, events, sandbox };
}

const toolMessages = (messages: Array<{ role: string; content?: string | null }>) => messages.filter((m) => m.role === 'tool').map((m) => m.content);

describe('the tool loop', () => {
  it('answers odd tool calls to the model instead of crashing: non-object arguments, bad JSON, unknown tools, arguments that are not text', async () => {
    const odd: ToolCall[] = [
      { id: 'a', name: 'list_files', arguments: '42' },
      { id: 'b', name: 'list_files', arguments: '{"dir": ' },
      { id: 'c', name: 'teleport', arguments: '{}' },
      { id: 'd', name: 'write_file', arguments: { path: 'x.py', content: 'ok' } as unknown as string },
    ];
    const { result, sandbox } = await loop((_req, turn) => (turn === 0 ? { toolCalls: odd } : { content: 'done' }));
    expect(result.endedBy).toBe('final_message');
    expect(toolMessages(result.messages)).toEqual([
      'arguments must be one JSON object, got number',
      expect.stringMatching(/^arguments are not valid JSON: .*Send the arguments as one JSON object\.$/),
      'no tool named "teleport"; available: read_file, list_files, write_file, run_command, run_checks, finish',
      'wrote x.py (2 characters)',
    ]);
    expect(await sandbox.readFile('x.py')).toBe('ok');
  });

  it('does not take a reply cut off at the length limit as the final answer', async () => {
    const { result, model } = await loop((_req, turn) => (turn === 0 ? { content: 'The answer is', finishReason: 'length' } : { content: 'The answer is 42.' }));
    expect(result.endedBy).toBe('final_message');
    expect(result.finalContent).toBe('The answer is 42.');
    const nudge = model.requests[1]!.messages.at(-1)!;
    expect('content' in nudge && nudge.content).toBe('Your reply was cut off at the length limit, so it was not used. Continue more briefly, or call a tool.');
  });

  it('shows the monitor what a shell command wrote: each new state is progress, and a write no check names asks the judge', async () => {
    let n = 0;
    const commands = { 'python3 gen.py': async (ws: { write(f: string, c: string): Promise<void> }) => (await ws.write('out.txt', `run ${++n}`), { exitCode: 0 }) };
    const triggers: string[] = [];
    const driftJudge = async (_recent: string[], trigger: string) => (triggers.push(trigger), { drift: 0, impossible: false, reason: 'fine' });
    const { result, events } = await loop(() => ({ toolCalls: [call('run_command', { command: 'python3 gen.py' })] }), { commands, monitor: new Monitor('test -f app.py', { driftEvery: 100 }), maxTurns: 4, driftJudge });
    // Four identical commands, each changing the workspace: not a loop.
    expect(events.ofType('monitor_flag')).toEqual([]);
    expect(result.endedBy).toBe('max_turns');
    expect(result.steps).toBe(4);
    expect(triggers).toEqual(Array(4).fill('wrote out.txt, which no check mentions'));
  });

  it('opens no more drift-judge sessions than its allowance: past it a trigger is not taken to the judge, and the loop goes on', async () => {
    let n = 0;
    const commands = { 'python3 gen.py': async (ws: { write(f: string, c: string): Promise<void> }) => (await ws.write('out.txt', `run ${++n}`), { exitCode: 0 }) };
    const triggers: string[] = [];
    const driftJudge = async (_recent: string[], trigger: string) => (triggers.push(trigger), { drift: 0, impossible: false, reason: 'fine' });
    const { result } = await loop(() => ({ toolCalls: [call('run_command', { command: 'python3 gen.py' })] }), { commands, monitor: new Monitor('test -f app.py', { driftEvery: 100 }), maxTurns: 7, driftJudge, driftAllowance: 4 });
    // Seven triggers (a write no check names, every step); four judged; the loop ran its seven turns.
    expect([triggers.length, result.steps, result.endedBy]).toEqual([4, 7, 'max_turns']);
  });

  it('does not flag re-running the checks when the pass count moved, though nothing in the workspace changed', async () => {
    // The checks depend on something outside the workspace (a service coming up): the third run passes two.
    let runs = 0;
    const passing = () => (++runs >= 3 ? 2 : 0);
    const model = (_req: unknown, turn: number) => (turn < 3 ? { toolCalls: [call('run_checks')] } : { content: 'done' });
    const { result, events } = await loop(model, { monitor: new Monitor('', { driftEvery: 100 }), runChecks: async () => Array.from({ length: 3 }, (_, i) => ({ id: `c${i}`, passed: i < passing(), exitCode: 0, timedOut: false, output: '' })) });
    expect(events.ofType('monitor_flag')).toEqual([]);
    expect(result.endedBy).toBe('final_message');
  });

  it('flags a shell command that changes nothing, repeated', async () => {
    const { result, events } = await loop(() => ({ toolCalls: [call('run_command', { command: 'true' })] }), { commands: { true: () => ({ exitCode: 0 }) }, monitor: new Monitor('', { driftEvery: 100 }) });
    expect(result.endedBy).toBe('monitor');
    expect(events.ofType('monitor_flag').map((f) => f.kind)).toEqual(['repeat']);
  });
});
