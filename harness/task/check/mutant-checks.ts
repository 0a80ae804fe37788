import { minus, propertyOf, skipped, type GradedTree, type PropertyResult } from './check-result.js';

/**
 * What the oracle's mutants prove, from their declarations and their gradings. Pure: every
 * input is already loaded or graded.
 */

/** A mutant as these checks read it (harness/grading/oracle-mutants.ts holds the full schema). */
export interface MutantDeclaration {
  id: string;
  breaks: readonly string[];
  output?: boolean;
  sentence?: string;
}

export interface MutantFacts {
  mutants: readonly MutantDeclaration[];
  /** Every requirement id of the spec, in order. */
  requirements: readonly string[];
  /** The requirements about output format alone (requirements.yaml `output: true`). */
  outputRequirements: readonly string[];
  /** The gradings of trees carrying mutants (kind `mutants`). */
  trees: readonly GradedTree[];
}

const declaredOf = (t: GradedTree, byId: ReadonlyMap<string, MutantDeclaration>) => [...new Set(t.members.flatMap((id) => byId.get(id)?.breaks ?? []))].sort();
const forkTrees = (trees: readonly GradedTree[]) => trees.filter((t) => t.kind === 'mutants' && t.mode === 'fork');

/** Every graded mutant tree fails exactly the union of its members' declared breaks. */
export function mutantsExact(f: MutantFacts): PropertyResult {
  const byId = new Map(f.mutants.map((m) => [m.id, m]));
  const trees = forkTrees(f.trees);
  if (!trees.length) return skipped('mutants-exact', 'no mutant graded');
  const failures = trees.flatMap((t) => {
    const declared = declaredOf(t, byId);
    const extra = minus(t.failing, declared);
    const missing = minus(declared, t.failing);
    const parts = [extra.length ? `fails ${extra.join(', ')}, undeclared` : '', missing.length ? `passes ${missing.join(', ')}, declared broken` : ''].filter(Boolean);
    return parts.length ? [`${t.name}: ${parts.join('; ')}`] : [];
  });
  const alone = trees.filter((t) => t.members.length === 1).length;
  return propertyOf('mutants-exact', failures, `${trees.length} trees (${alone} mutants alone, ${trees.length - alone} packed groups) of ${f.mutants.length} mutants, each failing exactly what it declares`);
}

/** Each requirement has a mutant declared to break it and nothing else, and graded alone it does. */
export function mutantPerRequirement(f: MutantFacts): PropertyResult {
  const single = new Map<string, string[]>();
  for (const m of f.mutants) if (m.breaks.length === 1) single.set(m.breaks[0]!, [...(single.get(m.breaks[0]!) ?? []), m.id]);
  const failures = f.requirements.filter((r) => !single.has(r)).map((r) => `${r}: no mutant declares breaking ${r} alone`);
  const unknown = f.mutants.flatMap((m) => minus(m.breaks, f.requirements).map((r) => `${m.id}: declares breaking ${r}, which requirements.yaml does not define`));
  return propertyOf('mutant-per-requirement', [...failures, ...unknown], `${f.requirements.length} requirements, each with a mutant breaking it alone`);
}

/** Output-format mutants are declared, and graded, to fail output requirements only. */
export function outputMutants(f: MutantFacts): PropertyResult {
  const output = f.mutants.filter((m) => m.output);
  if (!f.outputRequirements.length) {
    return skipped('output-mutants', `no requirement declares output: true in requirements.yaml${output.length ? `; ${output.length} output mutant(s) unchecked` : ''}`);
  }
  const allowed = new Set(f.outputRequirements);
  const declared = output.filter((m) => m.breaks.some((r) => !allowed.has(r))).map((m) => `${m.id}: declares breaking ${m.breaks.filter((r) => !allowed.has(r)).join(', ')}, not output requirements`);
  const outputIds = new Set(output.map((m) => m.id));
  const graded = forkTrees(f.trees)
    .filter((t) => t.members.length && t.members.every((id) => outputIds.has(id)))
    .filter((t) => t.failing.some((r) => !allowed.has(r)))
    .map((t) => `${t.name}: fails ${t.failing.filter((r) => !allowed.has(r)).join(', ')}, not output requirements`);
  return propertyOf('output-mutants', [...declared, ...graded], `${output.length} output mutants, breaking only ${f.outputRequirements.join(', ')}`);
}

/**
 * Under a mutant, the cases mapped (coverage.yaml) to the sentence it violates are among the
 * failures: the map is a claim that can fail. `sentenceCases` is sentence id -> case ids.
 */
export function sentenceKills(f: MutantFacts, sentenceCases: ReadonlyMap<string, readonly string[]> | null): PropertyResult {
  if (!sentenceCases) return skipped('sentence-kills', 'the oracle has no sentence map');
  const trees = forkTrees(f.trees);
  if (!trees.length) return skipped('sentence-kills', 'no mutant graded');
  const byId = new Map(f.mutants.map((m) => [m.id, m]));
  const failures = trees.flatMap((t) => {
    const failed = new Set(t.failedCases.map((c) => c.case));
    return t.members
      .map((id) => byId.get(id))
      .filter((m): m is MutantDeclaration => m?.sentence !== undefined && !(sentenceCases.get(m.sentence) ?? []).some((c) => failed.has(c)))
      .map((m) => `${m.id} in ${t.name}: no case mapped to ${m.sentence} fails`);
  });
  return propertyOf('sentence-kills', failures, `every graded mutant fails a case mapped to the sentence it violates`);
}

/**
 * Trees graded both ways (fork and exec) have the same verdict, case by case: on every case, or
 * on the cases the exec grading was given (a quick check's subset, which the fork grading holds).
 */
export function modesAgree(trees: readonly GradedTree[]): PropertyResult {
  const key = (t: GradedTree) => `${t.kind} ${t.members.join('+')}`;
  const fork = new Map(trees.filter((t) => t.mode === 'fork').map((t) => [key(t), t]));
  const exec = trees.filter((t) => t.mode === 'exec');
  if (!exec.length) return skipped('modes-agree', 'no tree graded with one interpreter per case');
  const verdicts = (t: GradedTree, on?: readonly string[]) => {
    const within = on ? new Set(on) : null;
    return t.failedCases.filter((c) => !within || within.has(c.case)).map((c) => `${c.case}: ${c.reason}`);
  };
  const subsets = exec.filter((t) => t.cases).length;
  const failures = exec.flatMap((t) => {
    const twin = fork.get(key(t));
    if (!twin) return [`${t.name}: graded with exec only`];
    if (t.cases && twin.cases) return [`${t.name}: neither grading saw every case`];
    const [a, b] = [verdicts(twin, t.cases), verdicts(t)];
    const differ = [...minus(a, b).map((v) => `fork only: ${v}`), ...minus(b, a).map((v) => `exec only: ${v}`)];
    return differ.length ? [`${t.name}: ${differ.slice(0, 3).join('; ')}${differ.length > 3 ? ` (+${differ.length - 3})` : ''}`] : [];
  });
  return propertyOf('modes-agree', failures, `${exec.length} trees graded both ways, identical case by case${subsets ? ` (${subsets} on a subset of the cases)` : ''}`);
}
