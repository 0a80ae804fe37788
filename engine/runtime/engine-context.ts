import type { Accounting } from './accounting.js';
import type { Clock } from '../ports/clock.js';
import type { EventSink } from '../ports/events.js';
import type { ModelRouter } from './model-router.js';
import type { SandboxProvider } from '../ports/sandbox.js';
import type { RequestLayout } from '../ports/model-client.js';

/** What every stage of a node shares across one `solve`. Built by `solve`; stages read it. */
export interface EngineContext {
  router: ModelRouter;
  sandboxes: SandboxProvider;
  events: EventSink;
  clock: Clock;
  accounting: Accounting;
  /** Host directory under which every node's workspace is created. */
  workRoot: string;
  runId: string;
  /** Attempts per node, first included. */
  maxAttempts: number;
  /** Attempts of every merge loop, first included; equal across arms. */
  mergeAttempts: number;
  /** Model turns per tool loop. */
  maxTurns: number;
  /** The whole objective: its text (e.g. a spec) and its acceptance criteria, handed to every node. */
  objective: { context: string | null; criteria: string[] };
  /** Where each part of a session's opening request goes (request-layout.ts). */
  requestLayout: RequestLayout;
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
  /** Why this node may not run at all (a prerequisite it depends on failed), or null. */
  blockedBy: string | null;
  /** Runs first and alone among its siblings, its real files handed to them; so it is built whole. */
  prerequisite: boolean;
}
