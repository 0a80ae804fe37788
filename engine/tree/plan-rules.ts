/**
 * Deterministic rules about splitting and asking. None of them consults a model: each
 * exists because a model, asked nicely, did the wrong thing.
 */

/**
 * Depth brake. Depth counts planning levels: a node at depth `d` (root 0) may split only
 * while its parent had room, `parentDepth + 1 < maxDepth`, i.e. `d < maxDepth`. So a cap of N
 * fully used yields leaves at depth N and reports N levels.
 */
export function hasRoom(depth: number, maxDepth: number): boolean {
  return depth + 1 < maxDepth;
}

export function maySplitAtDepth(depth: number, maxDepth: number): boolean {
  return depth === 0 ? maxDepth >= 1 : hasRoom(depth - 1, maxDepth);
}

/** Planning levels a tree used: the depth of its deepest leaf. */
export function achievedLevels(leafDepths: number[]): number {
  return leafDepths.length ? Math.max(...leafDepths) : 0;
}

const FILE_NAME = /(?<![\w/.-])(?:[\w-]+\/)*[\w-]+\.(?:py|md|txt|json|ya?ml|csv|sh|toml|cfg|ini|js|ts|html|css|sql)(?![\w.-])/g;

/** File names a goal mentions, by regex. */
export function namedFiles(goal: string): string[] {
  return [...new Set(goal.match(FILE_NAME) ?? [])];
}

/** One-file brake: a goal naming exactly one file may not split. Asked nicely, a model declined. */
export function isOneFileGoal(goal: string): boolean {
  return namedFiles(goal).length === 1;
}

export interface AtomicityLimits {
  /** Objective criteria one WORK unit may claim. Not configurable in spirit: several criteria are several units. Default 1. */
  maxClaims: number;
  /** Artifacts one unit may declare. Default 3. */
  maxArtifacts: number;
  /** Acceptance criteria one unit may declare. Default 4. */
  maxCriteria: number;
}

export const DEFAULT_ATOMICITY: AtomicityLimits = { maxClaims: 1, maxArtifacts: 3, maxCriteria: 4 };

export interface UnitDeclaration {
  kind: 'work' | 'decision';
  artifacts: string[];
  criteria: string[];
  /** Objective acceptance criteria (their text) this unit claims to satisfy. */
  claims: string[];
}

/**
 * Atomicity signal, from the unit's own declaration and with no model call: a WORK unit is
 * oversized when it claims several of the objective's criteria, or declares too many
 * artifacts or criteria. A DECISION unit is a choice, not work to divide, so never.
 */
export function atomicity(unit: UnitDeclaration, limits: AtomicityLimits = DEFAULT_ATOMICITY): { oversized: boolean; reasons: string[] } {
  if (unit.kind === 'decision') return { oversized: false, reasons: [] };
  const reasons: string[] = [];
  if (unit.claims.length > limits.maxClaims) reasons.push(`claims ${unit.claims.length} objective criteria (limit ${limits.maxClaims})`);
  if (unit.artifacts.length > limits.maxArtifacts) reasons.push(`declares ${unit.artifacts.length} artifacts (limit ${limits.maxArtifacts})`);
  if (unit.criteria.length > limits.maxCriteria) reasons.push(`declares ${unit.criteria.length} criteria (limit ${limits.maxCriteria})`);
  return { oversized: reasons.length > 0, reasons };
}
