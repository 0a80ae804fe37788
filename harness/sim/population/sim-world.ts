import { ARMS, RdhError, type Arm } from '../../../engine/index.js';
import type { Requirement } from '../../grading/spec-requirements.js';
import type { SimCorpus } from '../corpus-files.js';
import { defectModelOf } from '../defect-table.js';
import type { DefectModel } from '../defect-model.js';
import { identityDraws, type DrawSource, type SimCell } from '../draw.js';
import { sampleShared, type SimLeafRecord, type SimSharedPhase, type SimTreeNode } from '../sampler.js';
import { withBound, type SimModel, type SimParams } from '../sim-params.js';
import type { Pairing } from '../../manifest/manifest.js';

/** The SIMULATED population was asked something its model cannot answer (a bug, never a result). */
export class SimPopulationError extends RdhError {
  readonly code = 'sim_population';
}

export type { Pairing };

/** The sim path (`root.0.2`, children from 0) of an engine node id (`root.1.3`, children from 1). */
export function simPathOf(nodeId: string): string {
  const [head, ...rest] = nodeId.split('.');
  if (head !== 'root' || rest.some((part) => !/^[1-9][0-9]*$/.test(part))) throw new SimPopulationError(`node id ${JSON.stringify(nodeId)} is not an engine node id like root.1.2`);
  return ['root', ...rest.map((part) => String(Number(part) - 1))].join('.');
}

export interface SimWorldOptions {
  params: SimParams;
  /** Seed, the depth cap (the engine's maxDepth: the sim splits a node at level k iff k < cap, as the engine does) and the repetition: every draw is keyed by them. */
  cell: SimCell;
  corpus: SimCorpus;
  /** The spec's requirements, in order; the root owns them all. */
  requirements: readonly Pick<Requirement, 'id' | 'title' | 'criterion'>[];
  mergeAttempts: number;
  /** Default `shared`. */
  pairing?: Pairing;
  /** The manifest's max_children: the sim plants the tree the engine keeps under it. Default: no bound. */
  maxChildren?: number | undefined;
}

/**
 * Everything the SIMULATED population of one cell knows, as pure functions of its identity:
 * the draws, the planned tree and every leaf's draws, exactly as the pure sampler computes
 * them (the same functions, the same keys), so a sim cell run by the real engine in Docker and
 * the pure sampler make the same decisions. Under independent pairing each arm's build draws
 * its own tree: the shared-phase keys carry that arm.
 */
export class SimWorld {
  /** The planted parameters, with the manifest's bound beside them when it sets one. */
  readonly params: SimModel;
  readonly cell: SimCell;
  readonly corpus: SimCorpus;
  readonly defects: DefectModel;
  readonly requirements: readonly Pick<Requirement, 'id' | 'title' | 'criterion'>[];
  readonly mergeAttempts: number;
  readonly pairing: Pairing;
  private readonly base: DrawSource;
  private readonly trees = new Map<string, { phase: SimSharedPhase; nodes: Map<string, SimTreeNode>; leaves: Map<string, SimLeafRecord> }>();

  constructor(o: SimWorldOptions) {
    this.params = withBound(o.params, o.maxChildren);
    this.cell = o.cell;
    this.corpus = o.corpus;
    this.defects = defectModelOf(o.corpus.defects);
    this.requirements = o.requirements;
    this.mergeAttempts = o.mergeAttempts;
    this.pairing = o.pairing ?? 'shared';
    this.base = identityDraws(o.cell);
  }

  /**
   * The draws of the build that `arm` belongs to: shared-phase keys carry no arm under shared
   * pairing, and the build's own arm under independent pairing. Merge-phase keys always carry theirs.
   */
  draws(buildArm: Arm | null): DrawSource {
    if (this.pairing === 'shared') return this.base;
    if (!buildArm) throw new SimPopulationError('under independent pairing every call must say which arm it serves');
    return (key) => this.base(key.arm ? key : { ...key, arm: buildArm });
  }

  /** The arm whose build a call belongs to: none under shared pairing. */
  buildArmOf(arm: Arm | undefined): Arm | null {
    if (this.pairing === 'shared') return null;
    if (!arm || !ARMS.includes(arm)) throw new SimPopulationError('under independent pairing every call must say which arm it serves');
    return arm;
  }

  /** The planned tree and every leaf's draws of a build (cached). */
  tree(buildArm: Arm | null) {
    const key = buildArm ?? 'shared';
    let entry = this.trees.get(key);
    if (!entry) {
      const phase = sampleShared(this.params, this.draws(buildArm), this.defects, this.cell.cap, this.requirements.map((r) => r.id));
      const nodes = new Map<string, SimTreeNode>();
      const walk = (n: SimTreeNode): void => {
        nodes.set(n.path, n);
        n.children.forEach(walk);
      };
      walk(phase.root);
      entry = { phase, nodes, leaves: new Map(phase.leaves.map((l) => [l.path, l])) };
      this.trees.set(key, entry);
    }
    return entry;
  }

  /** A node of a build's tree by engine node id, or a SimPopulationError for a node the model never planned. */
  node(buildArm: Arm | null, nodeId: string): SimTreeNode {
    const node = this.tree(buildArm).nodes.get(simPathOf(nodeId));
    if (!node) throw new SimPopulationError(`the simulated tree has no node ${nodeId} (${simPathOf(nodeId)}); the engine asked about a node the sim never planned`);
    return node;
  }

  leaf(buildArm: Arm | null, nodeId: string): SimLeafRecord {
    const leaf = this.tree(buildArm).leaves.get(simPathOf(nodeId));
    if (!leaf) throw new SimPopulationError(`${nodeId} is not a leaf of the simulated tree`);
    return leaf;
  }

  /** The slug of a planned child: its requirement range, unique among siblings. */
  slugOf(node: Pick<SimTreeNode, 'requirements'>): string {
    const [first, last] = [node.requirements[0]!, node.requirements[node.requirements.length - 1]!];
    return (first === last ? first : `${first}-${last}`).toLowerCase();
  }
}
