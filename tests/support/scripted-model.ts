import type { ModelClient, ModelRequest, ModelResponse, Role, ToolCall, Usage } from '../../engine/index.js';

/** What a scripted handler may return: a reply, or a thrown error to simulate a failure. */
export type Reply = { content?: string | null; toolCalls?: ToolCall[]; usage?: Partial<Usage>; model?: string; finishReason?: string };
export type Handler = (req: ModelRequest, turn: number) => Reply | Promise<Reply>;

let callIds = 0;

/** A tool call, as a model would send it. */
export function call(name: string, args: Record<string, unknown> = {}): ToolCall {
  return { id: `call_${++callIds}`, name, arguments: JSON.stringify(args) };
}

export function json(value: unknown): Reply {
  return { content: JSON.stringify(value) };
}

/** The task line the engine puts at the top of a user message (`## Task: ...`). */
export function taskOf(req: ModelRequest): string {
  const user = req.messages.find((m) => m.role === 'user');
  const m = /## Task: ([^\n]+)/.exec(user && 'content' in user ? (user.content ?? '') : '');
  return m?.[1] ?? '';
}

/**
 * A fake ModelClient driven by per-role handlers. `turn` is the number of assistant messages
 * already in the conversation, so a tool loop can be scripted step by step. Every request is
 * kept for assertions.
 */
export class ScriptedModel implements ModelClient {
  readonly requests: ModelRequest[] = [];
  constructor(
    private readonly handlers: Partial<Record<Role, Handler>>,
    private readonly usage: Usage = { inputTokens: 100, outputTokens: 20, cachedTokens: 0 },
  ) {}

  async complete(req: ModelRequest): Promise<ModelResponse> {
    this.requests.push(structuredClone(req));
    const handler = this.handlers[req.role];
    if (!handler) throw new Error(`no scripted handler for role ${req.role}`);
    const turn = req.messages.filter((m) => m.role === 'assistant').length;
    const reply = await handler(req, turn);
    const usage = { ...this.usage, ...reply.usage } as Usage;
    // Like a real endpoint, it never writes more than max_tokens, and says so when it stopped there.
    const cut = req.maxTokens !== undefined && usage.outputTokens > req.maxTokens;
    return {
      content: reply.content ?? null,
      toolCalls: reply.toolCalls ?? [],
      usage: cut ? { ...usage, outputTokens: req.maxTokens! } : usage,
      model: reply.model ?? req.model,
      finishReason: reply.finishReason ?? (cut ? 'length' : reply.toolCalls?.length ? 'tool_calls' : 'stop'),
    };
  }

  byRole(role: Role): ModelRequest[] {
    return this.requests.filter((r) => r.role === role);
  }
}

/**
 * A leaf that does its job: writes `hello.py`, runs the checks, finishes; the checker writes
 * honest checks; the verifier finds the checks adequate and the work done.
 */
export function helloHandlers(overrides: Partial<Record<Role, Handler>> = {}, checkerAssumptions: string[] = []): Partial<Record<Role, Handler>> {
  return {
    checker: () =>
      json({
        assumptions: checkerAssumptions,
        checks: [
          { id: 'prints-hello', description: 'hello.py prints hello', command: 'test "$(python3 hello.py)" = hello' },
          { id: 'exits-zero', description: 'hello.py exits 0', command: 'python3 hello.py >/dev/null' },
          { id: 'has-test', description: 'a test file exists and passes', command: 'python3 -m pytest -q test_hello.py' },
        ],
      }),
    worker: (_req, turn) =>
      [
        { toolCalls: [call('write_file', { path: 'hello.py', content: 'print("hello")\n' })] },
        { toolCalls: [call('write_file', { path: 'test_hello.py', content: 'import subprocess\n\ndef test_hello():\n    assert subprocess.run(["python3", "hello.py"], capture_output=True, text=True).stdout == "hello\\n"\n' })] },
        { toolCalls: [call('run_checks')] },
        { toolCalls: [call('finish', { summary: 'wrote hello.py and its test' })] },
      ][Math.min(turn, 3)]!,
    verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: true, reason: 'they run the program' }) : json({ verdict: 'DONE', findings: [] })),
    drift_judge: () => json({ drift: 1, impossible: false, reason: 'on track' }),
    ...overrides,
  };
}

/** A check that writes a file as it runs: it must still pass when the verifier re-runs it, and leave the judged tree alone. */
export const LOGGING_CHECK = 'echo ran >> .check-log && test -f hello.py';

/**
 * The hello leaf with {@link LOGGING_CHECK} among its checks, and a worker that never runs the
 * checks itself: only the verifier's re-run could leave a `.check-log`.
 */
export function loggingCheckHandlers(): Partial<Record<Role, Handler>> {
  const base = helloHandlers();
  return {
    ...base,
    checker: () =>
      json({
        checks: [
          { id: 'writes-a-log', description: 'runs and logs', command: LOGGING_CHECK },
          { id: 'prints-hello', description: 'prints hello', command: 'test "$(python3 hello.py)" = hello' },
          { id: 'exits-zero', description: 'exits 0', command: 'python3 hello.py >/dev/null' },
        ],
      }),
    worker: (req, turn) => base.worker!(req, turn === 2 ? 3 : turn),
  };
}
