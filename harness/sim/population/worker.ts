import type { ModelRequest } from '../../../engine/index.js';
import { leafTreeSpec, treeFiles } from '../sim-tree.js';
import { answer, calls, turnOf, type SimReply } from './conversation.js';
import { simChecks, testCommand } from './sim-checks.js';
import type { SimWorld } from './sim-world.js';

/** A leaf's whole tree: the corpus with its planted defects, its tests, a failing test if it does not deliver. */
export function leafFiles(world: SimWorld, buildArm: ReturnType<SimWorld['buildArmOf']>, nodeId: string): Record<string, string> {
  return treeFiles(world.corpus, leafTreeSpec(world.leaf(buildArm, nodeId)));
}

const testsOf = (files: Record<string, string>) => Object.keys(files).filter((f) => f.startsWith('tests/'));

/** The SIMULATED checker at a leaf: checks of what the leaf will write (see simChecks). */
export function leafChecks(world: SimWorld, req: ModelRequest): SimReply {
  return answer({ assumptions: [], checks: simChecks(world.corpus, testsOf(leafFiles(world, world.buildArmOf(req.arm), req.nodeId))) });
}

/**
 * The SIMULATED worker at a leaf. Attempt 1 writes the whole tree with real `write_file` calls,
 * runs its own tests, and finishes; a later attempt (after a red verdict) has nothing new to
 * write, since every decision was drawn at attempt 1, so it runs its tests again and finishes.
 */
export function workerReply(world: SimWorld, req: ModelRequest): SimReply {
  const files = leafFiles(world, world.buildArmOf(req.arm), req.nodeId);
  const tests = testCommand(world.corpus, testsOf(files));
  const script: Array<() => SimReply> = [
    ...(req.attempt === 1 ? [() => calls(req, Object.entries(files).map(([path, content]) => ({ name: 'write_file', args: { path, content } })))] : []),
    ...(tests ? [() => calls(req, [{ name: 'run_command', args: { command: tests } }])] : []),
    () => calls(req, [{ name: 'finish', args: { summary: `SIMULATED leaf ${req.nodeId}: wrote the ${world.corpus.deliverable.package} package and the tests of its working claims`, interface_changes: [] } }]),
  ];
  const step = script[turnOf(req)];
  return step ? step() : answer({ done: true });
}
