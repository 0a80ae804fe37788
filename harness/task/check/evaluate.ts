import type { OracleCase } from '../../grading/oracle-cases.js';
import { baselineProperties } from './baselines.js';
import { propertyOf, skipped, type GradedTree, type PropertyResult } from './check-result.js';
import { corpusClean, corpusDefects, type DefectDeclaration } from './corpus-checks.js';
import { distinctOutputs } from './distinct-outputs.js';
import type { Part } from './grading-plan.js';
import { isolation } from './isolation.js';
import { modesAgree, mutantPerRequirement, mutantsExact, outputMutants, sentenceKills, type MutantDeclaration } from './mutant-checks.js';
import { sentenceCases, sentenceMapHoles, type SentenceMap } from './sentence-map.js';
import type { ExampleMapCheck } from './example-map.js';
import { peersHold } from './peer-checks.js';
import type { Peer } from './peers.js';

/** What the properties are computed from: the task's declarations and the gradings. */
export interface CheckFacts {
  requirements: readonly string[];
  outputRequirements: readonly string[];
  dependsOn: Readonly<Record<string, readonly string[]>>;
  cases: readonly OracleCase[];
  requirementMap: Readonly<Record<string, readonly string[]>>;
  mutants: readonly MutantDeclaration[];
  spec: string;
  sentenceMap: { ok: true; map: SentenceMap } | { ok: false; problem: string };
  /** A task graded by a package's examples maps examples, not sentences, to requirements: its recipe's check (null for a sentence map). */
  exampleMap?: ExampleMapCheck | null;
  corpus: { ok: true; defects: readonly DefectDeclaration[] } | { ok: false; problem: string };
  /** The task's peers; default none. */
  peers?: readonly Pick<Peer, 'name' | 'recipe'>[];
  parts: readonly Part[];
  trees: readonly GradedTree[];
}

/** Every property of the battery, in the table's order; a part left out gives skipped rows. Pure. */
export function evaluateCheck(f: CheckFacts): PropertyResult[] {
  const ran = (part: Part) => f.parts.includes(part);
  const off = (names: string[], part: Part) => names.map((n) => skipped(n, `the ${part} part was left out`));
  const mutantFacts = { mutants: f.mutants, requirements: f.requirements, outputRequirements: f.outputRequirements, trees: f.trees };
  const map = f.sentenceMap.ok ? sentenceCases(f.sentenceMap.map) : null;
  const rows: PropertyResult[] = [];
  rows.push(...(ran('baselines') ? baselineProperties(f.trees) : off(['reference-passes', 'empty-tree-zero', 'constant-programs-zero'], 'baselines')));
  if (ran('static')) {
    rows.push(mutantPerRequirement(mutantFacts), outputMutants(mutantFacts));
    rows.push(
      f.exampleMap
        ? propertyOf('example-map', f.exampleMap.problems, f.exampleMap.detail)
        : f.sentenceMap.ok
          ? sentenceMapHoles(f.spec, f.sentenceMap.map, new Set(f.cases.map((c) => c.id)), f.mutants)
          : unreadable('sentence-map', f.sentenceMap.problem),
      distinctOutputs(f.cases, f.requirementMap),
    );
  } else rows.push(...off(['mutant-per-requirement', 'output-mutants', 'sentence-map', 'distinct-outputs'], 'static'));
  if (ran('mutants')) {
    rows.push(mutantsExact(mutantFacts), isolation(f.mutants, f.dependsOn, f.trees), sentenceKills(mutantFacts, map), modesAgree(f.trees));
  } else rows.push(...off(['mutants-exact', 'isolation', 'sentence-kills', 'modes-agree'], 'mutants'));
  if (!ran('corpus')) rows.push(...off(['corpus-clean', 'corpus-defects'], 'corpus'));
  else if (f.corpus.ok) rows.push(corpusClean(f.trees), corpusDefects(f.corpus.defects, f.requirements, f.trees));
  else rows.push(...['corpus-clean', 'corpus-defects'].map((p) => unreadable(p, (f.corpus as { problem: string }).problem)));
  rows.push(ran('peers') ? peersHold(f.peers ?? [], f.trees) : skipped('peers-hold', 'the peers part was left out'));
  return rows;
}

/** A property whose input could not be read fails, naming why: a check that cannot run proves nothing. */
function unreadable(property: string, problem: string): PropertyResult {
  return { property, status: 'fail', detail: problem, failures: [problem] };
}
