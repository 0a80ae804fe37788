import { mutantGroups, type Mutant } from '../../grading/oracle-mutants.js';
import type { OracleCase } from '../../grading/oracle-cases.js';
import type { DefectDeclaration } from './corpus-checks.js';
import { randomSubset, SUBSET_SEEDS, twoGroupings } from './corpus-groupings.js';
import { coveringCases, twinCases } from './covering-cases.js';

/**
 * Which trees a check grades, decided before any grading. Pure.
 *
 * Mutants: `npm test` cannot afford every mutant alone, so by default they are packed eight
 * to a tree (never two breaking a common requirement, never two recorded `apart`) and one
 * SLICE of those groups is graded, at most SLICE_GROUPS of them: slice k holds the groups whose
 * index is k modulo the number of slices, and k turns with the UTC day, so consecutive days
 * grade every group. A SAMPLE of mutants is graded alone both ways (fork and exec). The
 * exhaustive form grades every mutant alone, both ways.
 */

export const MUTANT_GROUP_SIZE = 8;
export const SLICE_GROUPS = 11;
export const SAMPLE_SIZE = 4;

/**
 * The quick form (`--quick`, what `npm test` runs): every kind of tree is still graded through
 * the real grader, but fewer of each: one constant program (of three: silence, an error, the
 * commonest expected output), a slice of at most two mutant groups and one mutant alone both
 * ways, the clean corpus and two defect groups. Fewer cases too, where a subset settles the
 * property (covering-cases.ts): the empty tree and the constant are graded on two cases of each
 * requirement (every case if one of them earns a requirement there), and the mutant's second
 * grading (exec) on those and every case of the requirements it breaks, compared with the fork
 * grading case by case there; the reference and every fork grading of a mutant see every case. The static `distinct-outputs` property already
 * proves no constant can earn a requirement; the graded one confirms it through the runner. The
 * constant and the slices turn with the UTC day like the default's, so a week of CI runs visits
 * every constant and every group; the default and
 * the exhaustive form (commands of their own) grade everything at once. A grading costs
 * 10-40 s of a 2-core machine, and the default form's 40-odd per task do not fit CI's budget.
 */
export const QUICK = { sliceGroups: 2, sample: 1, corpusGroups: 2, constants: 1 } as const;

/** The parts of a check: static (no grading), baselines, mutants, corpus, peers. */
export const PARTS = ['static', 'baselines', 'mutants', 'corpus', 'peers'] as const;
export type Part = (typeof PARTS)[number];

export type PlannedTree = (
  | { name: string; kind: 'reference' | 'empty'; members: [] }
  | { name: string; kind: 'constant'; members: []; exit: number; stdout: string; stderr: string }
  | { name: string; kind: 'mutants'; members: string[]; mode: 'fork' | 'exec' }
  | { name: string; kind: 'corpus'; members: string[] }
  | { name: string; kind: 'peer'; members: [string] }
) & {
  /** Grade only these cases (ids, covering-cases.ts); absent: every case. */
  cases?: string[];
};

export interface PlanOptions {
  parts: readonly Part[];
  /** Every mutant alone both ways / every defect alone too, and the crossed constant family. Default false. */
  exhaustive: { mutants: boolean; corpus: boolean };
  /** The slice of mutant groups; default the UTC day's. */
  slice?: number;
  /** Grade only these mutants, alone (fork), instead of the slice and sample. */
  mutants?: readonly string[];
  /** Grade only these defects, alone, beside the clean corpus, instead of the groupings. */
  defects?: readonly string[];
  /** Milliseconds since the epoch, for the day's slice. Default now. */
  now?: number;
  /** The quick form ({@link QUICK}); ignored by the exhaustive parts. Default false. */
  quick?: boolean;
}

export interface PlanInput {
  cases: readonly OracleCase[];
  mutants: readonly Mutant[];
  /** The reference's files that mutants patch (relative path -> text), to pack them. */
  referenceSources: Readonly<Record<string, string>>;
  defects: readonly DefectDeclaration[] | null;
  /** The task's peers (oracle peers/*.yaml), by name. Default none. */
  peers?: readonly string[];
}

export interface GradingPlan {
  trees: PlannedTree[];
  /** What the plan chose, for the summary line. */
  notes: string[];
}

export function gradingPlan(input: PlanInput, o: PlanOptions): GradingPlan {
  const trees: PlannedTree[] = [];
  const notes: string[] = [];
  if (o.parts.includes('baselines')) {
    const quick = o.quick && !o.exhaustive.mutants;
    // Quick: what earns nothing on the covering cases earns nothing on all of them.
    const cases = quick ? { cases: coveringCases(input.cases) } : {};
    trees.push({ name: 'reference', kind: 'reference', members: [] }, { name: 'empty tree', kind: 'empty', members: [], ...cases });
    const family = constantFamily(input.cases, o.exhaustive.mutants);
    // Quick: one a day of silence with status 0, an error with status 1, and the commonest expected output.
    trees.push(...(quick ? daySlice(quickConstants(family), QUICK.constants, o).picked.map((t) => ({ ...t, ...cases })) : family));
    if (quick) notes.push(`baselines: the empty tree and the constant on ${cases.cases!.length} of ${input.cases.length} cases, covering every requirement (quick)`);
  }
  if (o.parts.includes('mutants')) trees.push(...mutantTrees(input, o, notes));
  if (o.parts.includes('corpus') && input.defects) trees.push(...corpusTrees(input.defects, o, notes));
  if (o.parts.includes('peers')) trees.push(...(input.peers ?? []).map((p): PlannedTree => ({ name: `peer ${p}`, kind: 'peer', members: [p] })));
  return { trees, notes };
}

function mutantTrees(input: PlanInput, o: PlanOptions, notes: string[]): PlannedTree[] {
  const alone = (m: string, mode: 'fork' | 'exec'): PlannedTree => ({ name: mode === 'fork' ? m : `${m} (exec)`, kind: 'mutants', members: [m], mode });
  if (o.mutants) return o.mutants.map((m) => alone(m, 'fork'));
  if (o.exhaustive.mutants) {
    notes.push(`every mutant alone, both ways (${input.mutants.length * 2} gradings)`);
    return input.mutants.flatMap((m) => [alone(m.id, 'fork'), alone(m.id, 'exec')]);
  }
  const packed = mutantGroups(input.mutants, input.referenceSources, MUTANT_GROUP_SIZE);
  const { picked: groups, slice, slices } = daySlice(packed, o.quick ? QUICK.sliceGroups : SLICE_GROUPS, o);
  notes.push(`mutants: ${input.mutants.length} in ${packed.length} groups; slice ${slice} of ${slices} (--slice ${slice}): ${groups.length} groups${o.quick ? ' (quick)' : ''}`);
  const sample = mutantSample(input.mutants, slice, o.quick ? QUICK.sample : SAMPLE_SIZE);
  // Quick: the exec twin where its verdicts can differ from the fork's, not on every case.
  const twin = (id: string): PlannedTree => {
    const t = alone(id, 'exec');
    return o.quick ? { ...t, cases: twinCases(input.cases, input.mutants.find((m) => m.id === id)?.breaks ?? []) } : t;
  };
  const twins = sample.map(twin);
  if (o.quick) notes.push(`modes: ${twins.map((t) => `${t.name} on ${t.cases!.length} of ${input.cases.length} cases`).join(', ')} (quick)`);
  return [
    ...groups.map((g) => ({ name: `group ${packed.indexOf(g) + 1} (${g.map((m) => m.id).join(' + ')})`, kind: 'mutants' as const, members: g.map((m) => m.id), mode: 'fork' as const })),
    ...sample.flatMap((m, i) => [alone(m, 'fork'), twins[i]!]),
  ];
}

/**
 * Mutants graded alone by default: the output mutant and the mutant with the largest declared
 * cascades (where a grouping hides most), and others that turn with the slice.
 */
export function mutantSample(mutants: readonly Mutant[], slice: number, size = SAMPLE_SIZE): string[] {
  const widest = (list: readonly Mutant[]) => [...list].sort((a, b) => b.breaks.length - a.breaks.length || a.id.localeCompare(b.id))[0];
  const picked = [widest(mutants.filter((m) => m.output)), widest(mutants)].filter((m): m is Mutant => m !== undefined).map((m) => m.id);
  const rest = mutants.filter((m) => !picked.includes(m.id));
  for (let i = 0; picked.length < size && i < rest.length; i++) picked.push(rest[(slice * size + i * 37) % rest.length]!.id);
  // A sample of one turns with the slice too, so the quick form grades a different mutant alone each day.
  if (size < 2 && mutants.length) return [[...new Set(picked)].concat(rest.map((m) => m.id))[slice % mutants.length]!];
  return [...new Set(picked)];
}

function corpusTrees(defects: readonly DefectDeclaration[], o: PlanOptions, notes: string[]): PlannedTree[] {
  const trees: PlannedTree[] = [{ name: 'corpus, no defect', kind: 'corpus', members: [] }];
  if (o.defects) return [...trees, ...o.defects.map((d) => ({ name: d, kind: 'corpus' as const, members: [d] }))];
  const { first, second } = twoGroupings(defects);
  if (o.quick && !o.exhaustive.corpus) {
    const all = [...first.map((g, i) => ({ name: `defects A${i + 1}`, g })), ...second.map((g, i) => ({ name: `defects B${i + 1}`, g }))];
    const { picked, slice, slices } = daySlice(all, QUICK.corpusGroups, o);
    notes.push(`corpus: ${defects.length} defects in ${first.length} + ${second.length} groups; slice ${slice} of ${slices} (quick): ${picked.map((p) => p.name).join(', ')}`);
    return [...trees, ...picked.map(({ name, g }) => ({ name, kind: 'corpus' as const, members: g.map((d) => d.id) }))];
  }
  trees.push(...first.map((g, i) => ({ name: `defects A${i + 1}`, kind: 'corpus' as const, members: g.map((d) => d.id) })));
  trees.push(...second.map((g, i) => ({ name: `defects B${i + 1}`, kind: 'corpus' as const, members: g.map((d) => d.id) })));
  for (const seed of SUBSET_SEEDS) trees.push({ name: `random subset ${seed}`, kind: 'corpus', members: [...randomSubset(defects, seed).values()].sort() });
  if (o.exhaustive.corpus) trees.push(...defects.map((d) => ({ name: d.id, kind: 'corpus' as const, members: [d.id] })));
  notes.push(`corpus: ${defects.length} defects in ${first.length} + ${second.length} groups and ${SUBSET_SEEDS.length} random subsets${o.exhaustive.corpus ? ', and each alone' : ''}`);
  return trees;
}

/** At most `perSlice` of `items`: slice k holds those whose index is k modulo the slices; k is `o.slice`, else the UTC day's. */
function daySlice<T>(items: readonly T[], perSlice: number, o: Pick<PlanOptions, 'slice' | 'now'>): { picked: T[]; slice: number; slices: number } {
  const slices = Math.max(1, Math.ceil(items.length / perSlice));
  const slice = (o.slice ?? Math.floor((o.now ?? Date.now()) / 86_400_000)) % slices;
  return { picked: items.filter((_, i) => i % slices === slice), slice, slices };
}

/** Of the default family: silence with status 0, an error with status 1, and the commonest expected output with its status. */
function quickConstants(family: PlannedTree[]): PlannedTree[] {
  const kept = family.filter((t) => t.kind === 'constant' && ((t.exit === 0 && !t.stdout && !t.stderr) || (t.exit === 1 && !t.stdout)));
  const commonest = family.find((t) => t.kind === 'constant' && t.stdout !== '');
  return commonest ? [...kept, commonest] : kept;
}

/**
 * Programs that ignore their input: the same exit status, stdout and stderr for every case.
 * Outputs: nothing, and the expected stdouts most cases share (the strongest constants there
 * are). By default each status 0-3 with no output, each common output with the status its
 * cases expect, and non-zero statuses with a silent stderr; exhaustive crosses every output
 * with every status and both stderrs.
 */
export function constantFamily(cases: readonly OracleCase[], crossed: boolean): PlannedTree[] {
  const counts = new Map<string, { n: number; exit: number }>();
  for (const c of cases) if (c.expect.stdout !== undefined && c.expect.stdout !== '') counts.set(c.expect.stdout, { n: (counts.get(c.expect.stdout)?.n ?? 0) + 1, exit: c.expect.exit });
  const common = [...counts].sort((a, b) => b[1].n - a[1].n || a[0].localeCompare(b[0])).slice(0, 3);
  const family: Array<[number, string, string]> = [];
  const noise = (exit: number) => (exit === 0 ? '' : 'error\n');
  if (crossed) {
    for (const exit of [0, 1, 2, 3]) for (const stdout of ['', ...common.map(([s]) => s)]) for (const stderr of ['', 'error\n']) family.push([exit, stdout, stderr]);
  } else {
    for (const exit of [0, 1, 2, 3]) family.push([exit, '', noise(exit)]);
    for (const [stdout, { exit }] of common) family.push([exit, stdout, noise(exit)]);
    family.push([2, '', ''], [3, '', ''], [0, '', 'warning\n']);
  }
  return family.map(([exit, stdout, stderr]) => ({ name: `constant: exit ${exit}, stdout ${JSON.stringify(stdout.slice(0, 30))}, stderr ${JSON.stringify(stderr)}`, kind: 'constant', members: [], exit, stdout, stderr }));
}
