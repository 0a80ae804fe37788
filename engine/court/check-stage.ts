import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Check } from '../base/check.js';
import { falsify } from './checks.js';
import { brief } from '../runtime/brief.js';
import type { EngineContext, Task } from '../runtime/engine-context.js';
import type { ChatMessage } from '../ports/model-client.js';
import { promptFor } from '../runtime/prompts.js';
import { ChecksReply } from '../runtime/replies.js';
import { StructuredOutputError, askStructured } from '../runtime/structured.js';
import { stamp } from '../ports/events.js';

/** Rewrite rounds for tautological or malformed checks before work starts. */
const FALSIFY_ROUNDS = 2;

export interface EstablishedChecks {
  checks: Check[];
  assumptions: string[];
  /** Checks dropped because they stayed tautological or malformed after every rewrite. */
  dropped: string[];
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
}

let emptyCounter = 0;

/**
 * Checks exist before work and are tested before they are trusted: every check runs on an
 * empty workspace, and the tautological or malformed ones are sent back to be rewritten.
 */
export async function establishChecks(ctx: EngineContext, task: Task, o: EstablishOptions): Promise<EstablishedChecks> {
  const ask = async (request: string, previous: Check[] | null) => {
    const messages: ChatMessage[] = [
      { role: 'system', content: promptFor('checker') },
      { role: 'user', content: `## Task: ${o.reason === 'seam' ? 'write integration checks for the seams' : previous ? 'rewrite checks' : 'write checks'}\n\n${brief(ctx, task)}${o.extra ? `\n\n${o.extra}` : ''}\n\n${request}` },
    ];
    try {
      return (await askStructured(ctx.router, 'checker', ChecksReply, { sessionId: o.session('checker'), messages })).value;
    } catch (error) {
      // An unreadable rewrite keeps the good set we have; only a first write has nothing to keep.
      if (error instanceof StructuredOutputError && previous) return { assumptions: [], checks: previous };
      throw error;
    }
  };

  const request =
    o.reason === 'inadequate' && o.previous
      ? `The current checks were judged too weak to prove the goal.\nCurrent checks:\n${JSON.stringify(o.previous, null, 2)}\nWhat they miss:\n${(o.guidance ?? []).map((g) => `- ${g}`).join('\n')}\nReturn the full improved set.`
      : o.reason === 'seam'
        ? 'The pieces are assembled at the workspace root. Write 2 to 4 checks of the seams between them: that the pieces actually work together as the goal requires.'
        : 'Write the checks for this unit.';
  const first = await ask(request, o.previous ?? null);
  let checks = uniqueIds(first.checks);
  const assumptions = [...first.assumptions];
  let revision = 1;
  emitChecks(ctx, task, revision, o.reason === 'initial' ? 'initial' : o.reason, checks);

  let toTest = checks;
  let bad: Array<{ id: string; outcome: string; detail: string }> = [];
  for (let round = 0; ; round++) {
    bad = (await falsifyOnEmpty(ctx, task, toTest)).filter((f) => f.outcome !== 'ok').map((f) => ({ id: f.checkId, outcome: f.outcome, detail: f.detail }));
    if (!bad.length || round >= FALSIFY_ROUNDS) break;
    const rewrite = await ask(
      `These checks were run on an EMPTY workspace and must be rewritten:\n${bad.map((b) => `- ${b.id}: ${b.outcome}: ${b.detail}`).join('\n')}\nAll current checks:\n${JSON.stringify(checks, null, 2)}\nReturn the full set with those checks fixed (keep their ids).`,
      checks,
    );
    const badIds = new Set(bad.map((b) => b.id));
    const replaced = uniqueIds(rewrite.checks).filter((c) => badIds.has(c.id) || !checks.some((k) => k.id === c.id));
    checks = [...checks.filter((c) => !badIds.has(c.id)), ...replaced];
    toTest = replaced;
    revision++;
    emitChecks(ctx, task, revision, 'falsified', checks);
  }
  // A check still tautological or malformed proves nothing; it must not count toward DONE.
  const dropped = bad.map((b) => b.id);
  return { checks: checks.filter((c) => !dropped.includes(c.id)), assumptions, dropped };
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
