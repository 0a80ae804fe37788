import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Check } from '../base/check.js';
import { StructuredOutputError } from '../base/errors.js';
import { stamp } from '../ports/events.js';
import type { ChatMessage } from '../ports/model-client.js';
import { briefSections } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import { openingMessages } from '../runtime/request-layout.js';
import { ChecksReply, MAX_CHECKS, MIN_CHECKS } from '../runtime/replies.js';
import { askStructured } from '../runtime/structured.js';
import { falsify } from './checks.js';
import type { NodeRecord } from './node-record.js';

/** Rewrite rounds for tautological, malformed or too few checks before work starts. */
const FALSIFY_ROUNDS = 2;

export interface EstablishedChecks {
  /** The usable checks: each failed on an empty workspace for the right reason. */
  checks: Check[];
  /** Checks dropped because they stayed tautological or malformed after every rewrite. */
  dropped: string[];
  /** Why the set cannot decide DONE (fewer than {@link MIN_CHECKS} usable), or null. */
  short: string | null;
}

export interface EstablishOptions {
  reason: 'initial' | 'inadequate' | 'seam';
  /** The current set, when rewriting it. */
  previous?: Check[];
  /** Why a rewrite was asked (what a weak set misses). */
  guidance?: string[];
  /** Extra context for seam checks: what the children built. */
  extra?: string;
  session: (role: string) => string;
  /** Where the checker's assumptions, and the questions among them, are kept. */
  record: NodeRecord;
}

let emptyCounter = 0;

/**
 * Checks exist before work and are tested before they are trusted: every check runs on an
 * empty workspace, the tautological or malformed ones are sent back to be rewritten, and a
 * set left with fewer than 3 usable checks is asked for more. A reply of more than 5 is
 * refused by the schema. Every reply's assumptions are kept, so a question for a person
 * raised in any round reaches the result.
 */
export async function establishChecks(ctx: EngineContext, task: Task, o: EstablishOptions): Promise<EstablishedChecks> {
  const ask = async (request: string, previous: Check[] | null) => {
    const messages: ChatMessage[] = openingMessages(ctx.requestLayout, {
      role: 'checker', brief: briefSections(ctx, task),
      head: `## Task: ${o.reason === 'seam' ? 'write integration checks for the seams' : previous ? 'rewrite checks' : 'write checks'}\n\n`,
      tail: `${o.extra ? `\n\n${o.extra}` : ''}\n\n${request}`,
    });
    try {
      const { value } = await askStructured(ctx.router, 'checker', ChecksReply, { sessionId: o.session('checker'), messages });
      o.record.assume(value.assumptions);
      return uniqueIds(value.checks);
    } catch (error) {
      // An unreadable rewrite keeps the good set we have; only a first write has nothing to keep.
      if (error instanceof StructuredOutputError && previous) return previous;
      throw error;
    }
  };
  const count = `${MIN_CHECKS} to ${MAX_CHECKS}`;
  const request =
    o.reason === 'inadequate' && o.previous
      ? `The current checks were judged too weak to prove the goal.\nCurrent checks:\n${JSON.stringify(o.previous, null, 2)}\nWhat they miss:\n${(o.guidance ?? []).map((g) => `- ${g}`).join('\n')}\nReturn the full improved set (${count} checks).`
      : o.reason === 'seam'
        ? `The pieces are assembled at the workspace root. Write ${count} checks of the seams between them: that the pieces actually work together as the goal requires.`
        : `Write the checks for this unit (${count}).`;

  let checks = await ask(request, o.previous ?? null);
  let revision = 1;
  emitChecks(ctx, task, revision, o.reason === 'initial' ? 'initial' : o.reason, checks);
  /** Commands already shown to fail on an empty workspace for the right reason, by check id. */
  const proven = new Map<string, string>();
  let bad: Array<{ id: string; outcome: string; detail: string }> = [];
  for (let round = 0; ; round++) {
    const untested = checks.filter((c) => proven.get(c.id) !== c.command);
    const results = await falsifyOnEmpty(ctx, task, untested);
    for (const f of results) if (f.outcome === 'ok') proven.set(f.checkId, untested.find((c) => c.id === f.checkId)!.command);
    bad = results.filter((f) => f.outcome !== 'ok').map((f) => ({ id: f.checkId, outcome: f.outcome, detail: f.detail }));
    const usable = checks.length - bad.length;
    if ((!bad.length && usable >= MIN_CHECKS) || round >= FALSIFY_ROUNDS) break;
    const problems = [
      ...(bad.length ? [`These checks were run on an EMPTY workspace and must be rewritten:\n${bad.map((b) => `- ${b.id}: ${b.outcome}: ${b.detail}`).join('\n')}`] : []),
      ...(usable < MIN_CHECKS ? [`Only ${usable} usable check(s): write at least ${MIN_CHECKS} (and at most ${MAX_CHECKS}).`] : []),
    ];
    checks = await ask(`${problems.join('\n')}\nAll current checks:\n${JSON.stringify(checks, null, 2)}\nReturn the full set (${count} checks), keeping the ids of the good ones.`, checks);
    revision++;
    emitChecks(ctx, task, revision, 'falsified', checks);
  }
  // A check still tautological or malformed proves nothing; it must not count toward DONE.
  const dropped = bad.map((b) => b.id);
  const usable = checks.filter((c) => !dropped.includes(c.id));
  const short = usable.length < MIN_CHECKS ? `only ${usable.length} usable check(s) after falsification; at least ${MIN_CHECKS} are needed to decide DONE` : null;
  return { checks: usable, dropped, short };
}

async function falsifyOnEmpty(ctx: EngineContext, task: Task, checks: Check[]) {
  if (!checks.length) return [];
  const dir = path.join(ctx.workRoot, task.id, `empty-${++emptyCounter}`);
  await mkdir(dir, { recursive: true });
  const sandbox = await ctx.sandboxes.create({ workspaceDir: dir, runId: ctx.runId, purpose: `${task.id}:falsify` });
  try {
    const results = await falsify(sandbox, checks);
    for (const f of results) {
      ctx.events.emit({ type: 'check_falsified', ...stamp(ctx.clock, task.id), checkId: f.checkId, outcome: f.outcome, detail: f.detail, exitCode: f.exitCode });
    }
    return results;
  } finally {
    await sandbox.dispose();
  }
}

function emitChecks(ctx: EngineContext, task: Task, revision: number, reason: 'initial' | 'falsified' | 'inadequate' | 'seam', checks: Check[]): void {
  ctx.events.emit({ type: 'checks_written', ...stamp(ctx.clock, task.id), revision, reason, checks });
}

function uniqueIds(checks: Check[]): Check[] {
  const seen = new Set<string>();
  return checks.map((c, i) => {
    const id = seen.has(c.id) ? `${c.id}-${i + 1}` : c.id;
    seen.add(id);
    return { ...c, id };
  });
}
