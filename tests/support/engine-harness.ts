import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MemoryEventSink, sessionLimiter, solve, type ModelClient, type ModelSpec, type NodeResult, type Role, type SandboxProvider, type SolveOptions } from '../../engine/index.js';
import { testProvider } from './docker.js';
import { FakeSandboxProvider, type FakeCommand } from './fake-sandbox.js';
import { ScriptedModel, type Handler } from './scripted-model.js';

/** Two families: alpha does the work, beta (which contributes nothing) verifies. */
export const TWO_FAMILIES: ModelSpec[] = [
  { name: 'alpha-large', model: 'alpha-l', endpoint: 'alpha', family: 'alpha', tier: 'large' },
  { name: 'alpha-medium', model: 'alpha-m', endpoint: 'alpha', family: 'alpha', tier: 'medium' },
  { name: 'alpha-small', model: 'alpha-s', endpoint: 'alpha', family: 'alpha', tier: 'small' },
  { name: 'beta-medium', model: 'beta-m', endpoint: 'beta', family: 'beta', tier: 'medium' },
];

export interface SolveHarness {
  root: NodeResult;
  events: MemoryEventSink;
  model: ScriptedModel;
  workRoot: string;
}

let docker: SandboxProvider | null = null;

export async function runSolve(options: {
  goal: string;
  handlers: Partial<Record<Role, Handler>>;
  budget?: SolveOptions['budget'];
  maxDepth?: number;
  roster?: ModelSpec[];
  clients?: (model: ScriptedModel) => Record<string, ModelClient>;
  usage?: ConstructorParameters<typeof ScriptedModel>[1];
  /** Sessions in flight (a `sessionLimiter` of this many). Default: the engine's. */
  concurrency?: number;
  maxTurns?: number;
  /** Run on the FAKE sandbox with these command answers instead of Docker (court logic only). */
  fake?: Record<string, FakeCommand> | FakeSandboxProvider;
  extra?: Partial<SolveOptions>;
}): Promise<SolveHarness> {
  const sandboxes = options.fake instanceof FakeSandboxProvider ? options.fake : options.fake ? new FakeSandboxProvider(options.fake) : (docker ??= testProvider());
  const model = new ScriptedModel(options.handlers, options.usage);
  const events = new MemoryEventSink();
  const workRoot = await mkdtemp(path.join(tmpdir(), 'rdh-solve-'));
  const { root } = await solve({
    goal: options.goal,
    budget: options.budget ?? 200_000,
    maxDepth: options.maxDepth ?? 2,
    roster: options.roster ?? TWO_FAMILIES,
    clients: options.clients?.(model) ?? { alpha: model, beta: model, gamma: model },
    sandboxes,
    workRoot,
    runId: `vitest-solve-${process.pid}`,
    events,
    ...(options.concurrency ? { limiter: sessionLimiter(options.concurrency) } : {}),
    maxTurns: options.maxTurns ?? 12,
    ...options.extra,
  });
  return { root, events, model, workRoot };
}
