import path from 'node:path';
import type { Accounting } from './accounting.js';
import type { Clock } from '../ports/clock.js';
import type { EventSink } from '../ports/events.js';
import type { ModelRouter } from './model-router.js';
import type { AtomicityLimits } from '../tree/plan-rules.js';
import type { SandboxProvider } from '../ports/sandbox.js';

/** Everything one `solve` shares across its nodes. Built by `solve`; stages read it. */
export interface EngineContext {
  router: ModelRouter;
  sandboxes: SandboxProvider;
  events: EventSink;
  clock: Clock;
  accounting: Accounting;
  /** Host directory under which every node's workspace is created. */
  workRoot: string;
  runId: string;
  /** Planning levels allowed (see plan-rules `hasRoom`). */
  maxDepth: number;
  /** Attempts per node, first included. */
  maxAttempts: number;
  /** Siblings built at once. */
  concurrency: number;
  /** Model turns per tool loop. */
  maxTurns: number;
  atomicity: AtomicityLimits;
  /** The whole objective: its text (e.g. a spec) and its acceptance criteria, handed to every node. */
  objective: { context: string | null; criteria: string[] };
}

/** What a node is asked to do. */
export interface Task {
  id: string;
  slug: string;
  goal: string;
  depth: number;
  kind: 'work' | 'decision';
  claims: string[];
  artifacts: string[];
  criteria: string[];
  /** The root's file layout and interfaces contract; null at the root before it plans. */
  layout: string | null;
  /** The real listing of a prerequisite's output, when one ran before this node. */
  prerequisiteListing: string[] | null;
  /** Host directories copied into the workspace before work (a prerequisite's output). */
  seedDirs: string[];
  /** The atomicity signal said this unit is several units (so it may split, given room). */
  oversized: boolean;
}

/** The host directory a node builds in (a leaf) or assembles its children in (a split node). */
export function workspaceOf(ctx: EngineContext, task: Task): string {
  return path.join(ctx.workRoot, task.id, 'ws');
}

/** Per-node session ids: `<node>/<role>/<n>`, the key shared by transcript and spend. */
export function sessionIds(nodeId: string): (role: string) => string {
  const counts = new Map<string, number>();
  return (role) => {
    const n = (counts.get(role) ?? 0) + 1;
    counts.set(role, n);
    return `${nodeId}/${role}/${n}`;
  };
}

export function brief(ctx: EngineContext, task: Task): string {
  const parts = [`## Goal\n${task.goal}`];
  if (ctx.objective.context) parts.push(`## Objective (shared by every piece)\n${ctx.objective.context}`);
  if (task.layout) parts.push(`## Layout and interfaces you must use\n${task.layout}`);
  if (task.claims.length) parts.push(`## Acceptance criteria this piece claims\n${task.claims.map((c) => `- ${c}`).join('\n')}`);
  if (task.criteria.length) parts.push(`## Its own criteria\n${task.criteria.map((c) => `- ${c}`).join('\n')}`);
  if (task.artifacts.length) parts.push(`## Artifacts it declares\n${task.artifacts.map((c) => `- ${c}`).join('\n')}`);
  if (task.prerequisiteListing) {
    parts.push(`## Already built by a prerequisite (real files, present in your workspace)\n${task.prerequisiteListing.join('\n') || '(none)'}`);
  }
  return parts.join('\n\n');
}
