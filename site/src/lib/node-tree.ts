import type { Check, CheckResult, EngineEvent, NodeResult } from '../../../harness/run-files.js';

/**
 * A cell's node tree as the cell page draws it: every node of result.json with what its events
 * add (the plan, falsification, the verifier opinions with their families, merges and repair
 * rounds, monitor flags, fallbacks) and the sessions that served it. Pure: data in, data out.
 */

export interface SessionLink {
  slug: string;
  sessionId: string;
  role: string;
  attempt: number;
  calls: number;
  /** Models that answered. */
  models: string[];
  costUsd: number | null;
}

type EventOf<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

export interface NodeView {
  id: string;
  anchor: string;
  slug: string;
  goal: string;
  depth: number;
  kind: NodeResult['kind'];
  mode: NodeResult['mode'];
  verdict: NodeResult['verdict'];
  forcedExecute: string | null;
  reasons: string[];
  assumptions: string[];
  openQuestions: string[];
  claims: string[];
  artifacts: string[];
  checks: Array<Check & { result: CheckResult | null }>;
  verifiedBy: string[];
  contributorModels: string[];
  contributorFamilies: string[];
  attempts: number;
  repairStop: NodeResult['repairStop'];
  stop: NodeResult['stop'];
  checkRewrites: number;
  monitorFlags: string[];
  overrides: NodeResult['overrides'];
  interfaceChanges: string[];
  tokens: number;
  usage: NodeResult['usage'];
  costUsd: number;
  estimatedUsageCalls: number;
  plan: Pick<EventOf<'node_planned'>, 'mode' | 'forcedExecute' | 'layout' | 'subtasks' | 'atomicity'> | null;
  falsified: Array<Pick<EventOf<'check_falsified'>, 'checkId' | 'outcome' | 'detail'>>;
  opinions: Array<Pick<EventOf<'verifier_opinion'>, 'verdict' | 'model' | 'family' | 'findings'>>;
  metaVerified: Array<Pick<EventOf<'meta_verified'>, 'adequate' | 'reason' | 'model'>>;
  assemblies: Array<Pick<EventOf<'assembled'>, 'children' | 'interfaceChanges'>>;
  repairRounds: Array<Pick<EventOf<'repair_round'>, 'attempt' | 'accepted' | 'independent' | 'score' | 'stop'>>;
  verdicts: Array<Pick<EventOf<'verdict'>, 'attempt' | 'verdict' | 'checksPassed' | 'checksTotal' | 'verifiedBy'>>;
  flags: Array<Pick<EventOf<'monitor_flag'>, 'kind' | 'detail' | 'endsAttempt'>>;
  fallbacks: Array<Pick<EventOf<'model_fallback'>, 'role' | 'from' | 'to' | 'reason'>>;
  sessions: SessionLink[];
  children: NodeView[];
}

/** A node id as an HTML id: `node-` and the id, anything but letters, digits, `.`, `-` and `_` written `~XX`. */
export function nodeAnchor(nodeId: string): string {
  return `node-${Array.from(nodeId, (c) => (/[A-Za-z0-9_.-]/.test(c) ? c : `~${c.codePointAt(0)!.toString(16).toUpperCase()}~`)).join('')}`;
}

function byNode(events: readonly EngineEvent[]): Map<string, EngineEvent[]> {
  const map = new Map<string, EngineEvent[]>();
  for (const e of events) {
    const list = map.get(e.nodeId);
    if (list) list.push(e);
    else map.set(e.nodeId, [e]);
  }
  return map;
}

const only = <T extends EngineEvent['type']>(events: readonly EngineEvent[], type: T) => events.filter((e): e is EventOf<T> => e.type === type);

export interface CellTree {
  root: NodeView;
  /** Sessions whose node is not in the tree (kept visible, never dropped). */
  unplaced: SessionLink[];
  nodes: number;
}

export function cellTree(result: NodeResult, events: readonly EngineEvent[], sessions: ReadonlyArray<SessionLink & { nodeId: string }>): CellTree {
  const eventsOf = byNode(events);
  const sessionsOf = new Map<string, SessionLink[]>();
  for (const { nodeId, ...s } of sessions) sessionsOf.set(nodeId, [...(sessionsOf.get(nodeId) ?? []), s]);
  const placed = new Set<string>();
  let nodes = 0;

  const view = (node: NodeResult): NodeView => {
    nodes += 1;
    placed.add(node.id);
    const ev = eventsOf.get(node.id) ?? [];
    const plan = only(ev, 'node_planned').at(-1);
    const resultOf = new Map(node.checkResults.map((r) => [r.id, r]));
    return {
      id: node.id,
      anchor: nodeAnchor(node.id),
      slug: node.slug,
      goal: node.goal,
      depth: node.depth,
      kind: node.kind,
      mode: node.mode,
      verdict: node.verdict,
      forcedExecute: node.forcedExecute,
      reasons: node.reasons,
      assumptions: node.assumptions,
      openQuestions: node.openQuestions,
      claims: node.claims,
      artifacts: node.artifacts,
      checks: node.checks.map((c) => ({ ...c, result: resultOf.get(c.id) ?? null })),
      verifiedBy: node.verifiedBy,
      contributorModels: node.contributorModels,
      contributorFamilies: node.contributorFamilies,
      attempts: node.attempts,
      repairStop: node.repairStop,
      stop: node.stop,
      checkRewrites: node.checkRewrites,
      monitorFlags: node.monitorFlags,
      overrides: node.overrides,
      interfaceChanges: node.interfaceChanges,
      tokens: node.tokens,
      usage: node.usage,
      costUsd: node.costUsd,
      estimatedUsageCalls: node.estimatedUsageCalls,
      plan: plan ? { mode: plan.mode, forcedExecute: plan.forcedExecute, layout: plan.layout, subtasks: plan.subtasks, atomicity: plan.atomicity } : null,
      falsified: only(ev, 'check_falsified').map(({ checkId, outcome, detail }) => ({ checkId, outcome, detail })),
      opinions: only(ev, 'verifier_opinion').map(({ verdict, model, family, findings }) => ({ verdict, model, family, findings })),
      metaVerified: only(ev, 'meta_verified').map(({ adequate, reason, model }) => ({ adequate, reason, model })),
      assemblies: only(ev, 'assembled').map(({ children, interfaceChanges }) => ({ children, interfaceChanges })),
      repairRounds: only(ev, 'repair_round').map(({ attempt, accepted, independent, score, stop }) => ({ attempt, accepted, independent, score, stop })),
      verdicts: only(ev, 'verdict').map(({ attempt, verdict, checksPassed, checksTotal, verifiedBy }) => ({ attempt, verdict, checksPassed, checksTotal, verifiedBy })),
      flags: only(ev, 'monitor_flag').map(({ kind, detail, endsAttempt }) => ({ kind, detail, endsAttempt })),
      fallbacks: only(ev, 'model_fallback').map(({ role, from, to, reason }) => ({ role, from, to, reason })),
      sessions: sessionsOf.get(node.id) ?? [],
      children: node.children.map(view),
    };
  };
  const root = view(result);
  const unplaced = [...sessionsOf.entries()].filter(([id]) => !placed.has(id)).flatMap(([, list]) => list);
  return { root, unplaced, nodes };
}
