import type { Check, CheckResult, ClaimRow, EngineEvent, NodeResult } from '../../../harness/run-file-schemas.js';

/**
 * A cell's node tree as the cell page draws it: every node of result.json with what its events
 * add (the plan, falsification, the verifier opinions with their families, each merge attempt
 * with its reviewer and findings and the repair that followed, monitor flags, fallbacks), the
 * fate of every claim its leaves made (the report's `claims`: one source), and the sessions that
 * served it, wherever their transcripts are kept. Pure: data in, data out.
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
  /** The cell's sessions page its transcript starts on (session-pages.ts); 0: it has none, and its row on the first says where to read it. */
  pack: number;
}

/** Where a session's page is: the cell whose folder holds its transcript, and whether it is the pair's shared build. */
export interface SessionPlace {
  nodeId: string;
  /** The cell whose transcripts hold it (a shared session's: the first arm's). */
  cell: string;
  /** Work of the pair's shared build (planning, leaves): it served both cells. */
  shared: boolean;
}

export interface PlacedSession extends SessionLink, Omit<SessionPlace, 'nodeId'> {
  /** Unique among its node's sessions: the role and what tells it from its siblings (`drift_judge 2`), and the attempt. */
  label: string;
}

/** One claim of a leaf as the page marks it. */
export interface ClaimMark {
  requirement: string;
  leaf: string;
  leafName: string;
  leafAnchor: string | null;
  level: number;
  survived: boolean;
  /** The node whose merge killed it, when merges were graded and it is known. */
  diedAt: string | null;
  diedAtName: string | null;
  /** The merge attempt of that node on this page whose merge stood (its last), else its merge section. */
  diedAnchor: string | null;
}

/** One merge attempt of a node in this cell's arm, with the repair round that judged it. */
export interface MergeReviewView {
  attempt: number;
  kind: 'independent' | 'self';
  model: string | null;
  family: string | null;
  independent: boolean;
  accept: boolean | null;
  findings: string[];
  /** Whether the node's verdict was taken from this review (never a self-review's); null when read from result.json. */
  verdictUsed: boolean | null;
  seamChecks: { passed: number; total: number } | null;
  repair: Pick<EventOf<'repair_round'>, 'accepted' | 'independent' | 'score' | 'stop'> | null;
}

type EventOf<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

export interface NodeView {
  id: string;
  anchor: string;
  slug: string;
  /** The node's one name on every page: its id and its slug (see nodeName). */
  name: string;
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
  mergeReviews: MergeReviewView[];
  /** The claims this node made as a leaf, marked survived or killed. */
  claimMarks: ClaimMark[];
  /** The claims that died at this node's merge. */
  killedHere: ClaimMark[];
  sessions: PlacedSession[];
  children: NodeView[];
}

/** A node as every page names it: its id (what the report and the claims use) and its slug (what the planner called it). */
export function nodeName(id: string, slug: string | null | undefined): string {
  return slug && slug !== id ? `${id} · ${slug}` : id;
}

/** The anchor of a node's merge attempts (where a claim's death links). */
export const mergeAnchor = (nodeId: string): string => `${nodeAnchor(nodeId)}-merge`;

/** The anchor of one merge attempt of a node: where a killed claim links (the attempt whose merge stood). */
export const mergeAttemptAnchor = (nodeId: string, attempt: number): string => `${mergeAnchor(nodeId)}-${attempt}`;

/** A requirement's row in the oracle's table: `req-` and the id, escaped as node anchors are. */
export function requirementAnchor(requirement: string): string {
  return `req-${nodeAnchor(requirement).slice('node-'.length)}`;
}

/**
 * A session's label among its node's: the session id without its arm and node (`gated/root.1/drift_judge/2`
 * reads `drift_judge 2`), then the attempt. The whole id when that is not what it starts with.
 */
export function sessionLabel(sessionId: string, nodeId: string, attempt: number): string {
  const parts = sessionId.split('/');
  const at = parts.indexOf(nodeId);
  const rest = at >= 0 && at <= 1 ? parts.slice(at + 1) : parts;
  return `${rest.join(' ') || sessionId}, attempt ${attempt}`;
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
  unplaced: PlacedSession[];
  nodes: number;
}

/** The report's claims of one cell as the page lists them, each linked to its leaf and, when known, the merge that killed it. */
export function claimMarks(claims: readonly ClaimRow[], result: NodeResult | null): ClaimMark[] {
  const nodes = new Map(result ? flattenTree(result).map((n) => [n.id, n]) : []);
  return claims.map((c) => {
    const leaf = nodes.get(c.leaf);
    const died = c.diedAt ? nodes.get(c.diedAt) : undefined;
    return {
      requirement: c.requirement, leaf: c.leaf, leafName: nodeName(c.leaf, leaf?.slug), leafAnchor: leaf ? nodeAnchor(c.leaf) : null, level: c.level, survived: c.survived,
      diedAt: c.diedAt, diedAtName: c.diedAt ? nodeName(c.diedAt, died?.slug) : null, diedAnchor: died ? diedAnchorOf(died) : null,
    };
  });
}

/** Where a claim killed at `node`'s merge links: the attempt whose merge stood (the last recorded), else the merge section. */
function diedAnchorOf(node: NodeResult): string {
  const last = node.merge?.attempts.at(-1)?.attempt;
  return last === undefined ? mergeAnchor(node.id) : mergeAttemptAnchor(node.id, last);
}

function flattenTree(node: NodeResult): NodeResult[] {
  return [node, ...node.children.flatMap(flattenTree)];
}

/**
 * A node's assemblies, each told once (an attempt that assembles the same children again adds
 * nothing to read), its children by their one name: the event names a child by its id or slug.
 */
function assemblies(node: NodeResult, ev: readonly EngineEvent[]): NodeView['assemblies'] {
  const names = new Map(node.children.flatMap((c) => [[c.id, nodeName(c.id, c.slug)], [c.slug, nodeName(c.id, c.slug)]] as const));
  const seen = new Set<string>();
  const out: NodeView['assemblies'] = [];
  for (const a of only(ev, 'assembled')) {
    const view = { children: a.children.map((c) => names.get(c) ?? c), interfaceChanges: a.interfaceChanges };
    const key = JSON.stringify(view);
    if (!seen.has(key)) out.push(view);
    seen.add(key);
  }
  return out;
}

/** Every merge attempt of a node: from its merge_review events, else (a run recorded without events) from result.json's merge record. */
function mergeReviews(node: NodeResult, ev: readonly EngineEvent[]): MergeReviewView[] {
  const rounds = only(ev, 'repair_round');
  const seams = new Map((node.merge?.attempts ?? []).map((a) => [a.attempt, a.seamChecks]));
  const repairOf = (attempt: number) => {
    const r = rounds.find((x) => x.attempt === attempt);
    return r ? { accepted: r.accepted, independent: r.independent, score: r.score, stop: r.stop } : null;
  };
  const reviews = only(ev, 'merge_review');
  if (reviews.length > 0) {
    return reviews.map((r) => ({
      attempt: r.attempt, kind: r.kind, model: r.model, family: r.family, independent: r.independent, accept: r.accept, findings: r.findings,
      verdictUsed: r.verdictUsed, seamChecks: seams.get(r.attempt) ?? null, repair: repairOf(r.attempt),
    }));
  }
  return (node.merge?.attempts ?? []).map((a) => ({
    attempt: a.attempt, kind: a.reviewer.kind, model: a.reviewer.model, family: a.reviewer.family, independent: a.reviewer.independent, accept: a.accept,
    findings: a.findings, verdictUsed: null, seamChecks: a.seamChecks, repair: repairOf(a.attempt),
  }));
}

export function cellTree(result: NodeResult, events: readonly EngineEvent[], sessions: ReadonlyArray<SessionLink & SessionPlace>, claims: readonly ClaimRow[] = []): CellTree {
  const eventsOf = byNode(events);
  const sessionsOf = new Map<string, PlacedSession[]>();
  for (const { nodeId, ...s } of sessions) sessionsOf.set(nodeId, [...(sessionsOf.get(nodeId) ?? []), { ...s, label: sessionLabel(s.sessionId, nodeId, s.attempt) }]);
  // A label that still repeats within a node (ids the engine did not shape) falls back to the whole id.
  for (const list of sessionsOf.values()) {
    const seen = new Map<string, number>();
    for (const s of list) seen.set(s.label, (seen.get(s.label) ?? 0) + 1);
    for (const s of list) if (seen.get(s.label)! > 1) s.label = `${s.sessionId}, attempt ${s.attempt}`;
  }
  const marks = claimMarks(claims, result);
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
      name: nodeName(node.id, node.slug),
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
      assemblies: assemblies(node, ev),
      repairRounds: only(ev, 'repair_round').map(({ attempt, accepted, independent, score, stop }) => ({ attempt, accepted, independent, score, stop })),
      verdicts: only(ev, 'verdict').map(({ attempt, verdict, checksPassed, checksTotal, verifiedBy }) => ({ attempt, verdict, checksPassed, checksTotal, verifiedBy })),
      flags: only(ev, 'monitor_flag').map(({ kind, detail, endsAttempt }) => ({ kind, detail, endsAttempt })),
      fallbacks: only(ev, 'model_fallback').map(({ role, from, to, reason }) => ({ role, from, to, reason })),
      mergeReviews: mergeReviews(node, ev),
      claimMarks: marks.filter((m) => m.leaf === node.id),
      killedHere: marks.filter((m) => !m.survived && m.diedAt === node.id),
      sessions: sessionsOf.get(node.id) ?? [],
      children: node.children.map(view),
    };
  };
  const root = view(result);
  const unplaced = [...sessionsOf.entries()].filter(([id]) => !placed.has(id)).flatMap(([, list]) => list);
  return { root, unplaced, nodes };
}
