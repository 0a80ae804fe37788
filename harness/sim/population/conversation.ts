import type { ModelRequest, ToolCall } from '../../../engine/index.js';
import { SimPopulationError } from './sim-world.js';

/** What a simulated role says on one turn: a final message, or tool calls. */
export interface SimReply {
  content: string | null;
  toolCalls: ToolCall[];
}

/** The turn of a session this call is: how many times the sim has already answered in it. */
export function turnOf(req: ModelRequest): number {
  return req.messages.filter((m) => m.role === 'assistant').length;
}

/** The text of the last user message (the task, or the engine's latest note). */
export function lastUser(req: ModelRequest): string {
  const user = req.messages.filter((m) => m.role === 'user').at(-1);
  return user && 'content' in user ? user.content : '';
}

/** The `## Task: ...` line of the first user message: its first line (task-first layout), or the first line after the layout contract (shared-first); see request-layout.ts. */
export function taskLine(req: ModelRequest): string {
  const user = req.messages.find((m) => m.role === 'user');
  // Anchored at a line start: the contract before it is a planner's text, which may quote the words mid-line.
  return /^## Task: ([^\n]+)/m.exec(user && 'content' in user ? user.content : '')?.[1] ?? '';
}

export function answer(value: unknown): SimReply {
  return { content: JSON.stringify(value), toolCalls: [] };
}

/** Tool calls with ids that are a pure function of the session, turn and position. */
export function calls(req: ModelRequest, list: Array<{ name: string; args: Record<string, unknown> }>): SimReply {
  const turn = turnOf(req);
  return { content: null, toolCalls: list.map((c, i) => ({ id: `sim_${turn}_${i}`, name: c.name, arguments: JSON.stringify(c.args) })) };
}

/** The tool results of one earlier turn, in call order, with the calls that produced them. */
export function resultsOfTurn(req: ModelRequest, turn: number): Array<{ name: string; args: Record<string, unknown>; content: string }> {
  const assistants = req.messages.map((m, i) => ({ m, i })).filter(({ m }) => m.role === 'assistant');
  const at = assistants[turn];
  if (!at || at.m.role !== 'assistant') throw new SimPopulationError(`${req.sessionId}: no turn ${turn} to read results from`);
  const byId = new Map(req.messages.slice(at.i + 1).flatMap((m) => (m.role === 'tool' ? [[m.toolCallId, m.content] as const] : [])));
  return (at.m.toolCalls ?? []).map((c) => {
    const content = byId.get(c.id);
    if (content === undefined) throw new SimPopulationError(`${req.sessionId}: tool call ${c.id} (${c.name}) has no result`);
    return { name: c.name, args: JSON.parse(c.arguments) as Record<string, unknown>, content };
  });
}

/** A tool's shown output, refused when the engine cut it: reading half a file would make a wrong decision silently. */
export function whole(content: string, what: string): string {
  if (/\n\[\.\.\. \d+ more characters\]$/.test(content)) throw new SimPopulationError(`${what} was cut short by the tool's output limit; the simulated population cannot read it whole`);
  return content;
}

/** The stdout of a `run_command` result (`exit N\n<stdout>[\n[stderr]\n...]`). */
export function commandStdout(content: string): string {
  const body = content.slice(content.indexOf('\n') + 1);
  const cut = body.indexOf('\n[stderr]\n');
  return cut < 0 ? body : body.slice(0, cut);
}
