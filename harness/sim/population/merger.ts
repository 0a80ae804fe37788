import type { Arm, ModelRequest } from '../../../engine/index.js';
import { applySeams, collapseDraws, repairDraws, seamDraws } from '../decisions.js';
import type { SimCorpus } from '../corpus-files.js';
import { DEFECT_MARKER } from '../defect-table.js';
import { treeFiles } from '../sim-tree.js';
import { answer, calls, commandStdout, lastUser, resultsOfTurn, turnOf, whole, type SimReply } from './conversation.js';
import { programFiles, simChecks } from './sim-checks.js';
import { SimPopulationError, type SimWorld } from './sim-world.js';

/** The program's top-level entries (its package folder, for a corpus that keeps its program in one), where planted markers live. */
function programRoots(corpus: SimCorpus): string[] {
  return [...new Set(programFiles(corpus).map((f) => f.split('/')[0]!))].sort();
}

/** One run_command that shows the merger every planted marker and every test file, in the children and at the root. */
export function gatherCommand(corpus: SimCorpus): string {
  const roots = programRoots(corpus);
  return `grep -rn --include='*.py' 'SIMULATED DEFECT R' ${roots.map((r) => `.children/*/${r}`).join(' ')} ${roots.join(' ')} 2>/dev/null; echo '== tests'; find .children/*/tests tests -maxdepth 1 -name 'test_r*.py' 2>/dev/null | sort`;
}

interface TreeState {
  /** Requirement -> planted variant. */
  present: Map<string, string>;
  /** Requirements whose test file the tree carries. */
  tests: Set<string>;
}

/** The SIMULATED checker at a merge: seam checks, written after the first assembly (see simChecks). */
export function seamChecks(world: SimWorld): SimReply {
  return answer({ assumptions: [], checks: simChecks(world.corpus, 'any') });
}

/** Requirement -> variant of the markers grep found in one tree, each matched to the planted patch whose line it is. */
function variantsOf(world: SimWorld, hits: Array<{ file: string; line: string }>): Map<string, string> {
  const found = new Map<string, string>();
  for (const hit of hits) {
    const requirement = new RegExp(`${DEFECT_MARKER} (R\\d{2})`).exec(hit.line)?.[1];
    if (!requirement) continue;
    const matches = world.corpus.defects.filter((d) => d.requirement === requirement && d.file === hit.file && d.replace.split('\n').includes(hit.line));
    if (matches.length !== 1) throw new SimPopulationError(`a marker of ${requirement} in ${hit.file} matches ${matches.length} planted patches, so its defect cannot be told`);
    const previous = found.get(requirement);
    if (previous && previous !== matches[0]!.id) throw new SimPopulationError(`${requirement} carries two different planted patches`);
    found.set(requirement, matches[0]!.id);
  }
  return found;
}

/** Every tree's state from the gather command's output: '' for the root, else the child's slug. */
function statesOf(world: SimWorld, output: string): Map<string, TreeState> {
  const states = new Map<string, TreeState>();
  const state = (key: string) => states.get(key) ?? (states.set(key, { present: new Map(), tests: new Set() }), states.get(key)!);
  const [markers = '', tests = ''] = commandStdout(output).split('== tests\n');
  const hits = new Map<string, Array<{ file: string; line: string }>>();
  const roots = programRoots(world.corpus).map((r) => r.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const marker = new RegExp(`^(?:\\.children\\/([^/]+)\\/)?((?:${roots})(?:\\/[^:]*)?):\\d+:(.*)$`);
  for (const text of markers.split('\n').filter(Boolean)) {
    const m = marker.exec(text);
    if (!m) throw new SimPopulationError(`cannot read the gathered marker line ${JSON.stringify(text.slice(0, 120))}`);
    const key = m[1] ?? '';
    hits.set(key, [...(hits.get(key) ?? []), { file: m[2]!, line: m[3]! }]);
  }
  for (const [key, list] of hits) state(key).present = variantsOf(world, list);
  for (const text of tests.split('\n').filter(Boolean)) {
    const m = /^(?:\.children\/([^/]+)\/)?tests\/test_(r\d{2})_[^/]*\.py$/.exec(text);
    if (!m) throw new SimPopulationError(`cannot read the gathered test path ${JSON.stringify(text)}`);
    state(m[1] ?? '').tests.add(m[2]!.toUpperCase());
  }
  return states;
}

/** The requirements a review found, as the engine handed its findings to this attempt. */
export function findingsIn(text: string): string[] {
  return [...new Set([...text.matchAll(new RegExp(`^- ${DEFECT_MARKER} (R\\d{2})`, 'gm'))].map((m) => m[1]!))];
}

/**
 * The SIMULATED merger, one attempt per session. It gathers the children's planted markers and
 * test files with one command, then writes the assembled tree at the root: each requirement's
 * defect state from the child that owns it; at attempt 1 the seam defects of this merge
 * (`seamDraws`, once per merge) and, at the root of a collapsed cell, the collapse mode's
 * defects (`collapseDraws`); at a later attempt the defects the last review found, each
 * removed with `repair_rate` (`repairDraws`). It writes the program file by file and copies
 * every child's test of a requirement that is not defective, runs them, and finishes.
 */
export function mergerReply(world: SimWorld, req: ModelRequest): SimReply {
  const arm: Arm | undefined = req.arm;
  if (!arm) throw new SimPopulationError(`${req.sessionId}: a merge call must say which arm it serves`);
  const turn = turnOf(req);
  const gather = gatherCommand(world.corpus);
  if (turn === 0) return calls(req, [{ name: 'run_command', args: { command: gather } }]);
  const buildArm = world.buildArmOf(arm);
  const node = world.node(buildArm, req.nodeId);
  const draws = world.draws(buildArm);
  const gathered = resultsOfTurn(req, 0)[0];
  if (!gathered || gathered.args.command !== gather) throw new SimPopulationError(`${req.sessionId}: the first turn did not gather the children`);
  const states = statesOf(world, whole(gathered.content, 'the gathered markers'));
  const root = states.get('') ?? { present: new Map(), tests: new Set() };
  /** Where each requirement's test can be copied from: the first child that carries it. */
  const testSource = new Map<string, string>();
  const combined = new Map<string, string>();
  for (const child of node.children) {
    const slug = world.slugOf(child);
    const got = states.get(slug) ?? { present: new Map(), tests: new Set() };
    for (const r of child.requirements) if (got.present.has(r)) combined.set(r, got.present.get(r)!);
    for (const r of got.tests) if (!testSource.has(r)) testSource.set(r, slug);
  }
  let present: Map<string, string>;
  if (req.attempt === 1) {
    const seams = seamDraws(world.params, draws, world.defects, arm, { path: node.path, children: node.children.map((c) => c.requirements) });
    const collapse = collapseDraws(world.params, draws, world.defects, arm, { path: node.path, requirements: node.requirements });
    present = applySeams(applySeams(combined, seams), collapse);
  } else {
    const repaired = new Set(repairDraws(world.params, draws, arm, { path: node.path, attempt: req.attempt, findings: findingsIn(lastUser(req)) }));
    present = new Map([...root.present].filter(([r]) => !repaired.has(r)));
  }
  const testsFor = [...testSource.keys()].filter((r) => !present.has(r)).sort();
  const next = treeFiles(world.corpus, { present, testsFor });
  const before: Record<string, string> = req.attempt === 1 ? {} : treeFiles(world.corpus, { present: root.present, testsFor: [...root.tests] });
  // The program is written file by file (its defects come from several children); the tests are copied from the children that carry them.
  const writes = Object.entries(next).filter(([f, text]) => !f.startsWith('tests/') && before[f] !== text);
  const copies = Object.keys(next).filter((f) => f.startsWith('tests/') && before[f] === undefined);
  const sourceOf = (f: string) => testSource.get(/^tests\/test_(r\d{2})_/.exec(f)?.[1]?.toUpperCase() ?? '') ?? testSource.get(testsFor[0]!)!;
  const copy = copies.length ? `mkdir -p tests && ${copies.map((f) => `cp .children/${sourceOf(f)}/${f} ${f}`).join(' && ')}` : null;
  const script: Array<() => SimReply> = [
    ...(writes.length ? [() => calls(req, writes.map(([path, content]) => ({ name: 'write_file', args: { path, content } })))] : []),
    ...(copy ? [() => calls(req, [{ name: 'run_command', args: { command: copy } }])] : []),
    ...(testsFor.length ? [() => calls(req, [{ name: 'run_command', args: { command: 'python3 -m pytest -q -p no:cacheprovider tests' } }])] : []),
    () => calls(req, [{ name: 'finish', args: { summary: `SIMULATED merge of ${node.children.length} children at ${req.nodeId}, attempt ${req.attempt}`, interface_changes: [] } }]),
  ];
  const step = script[turn - 1];
  return step ? step() : answer({ done: true });
}
