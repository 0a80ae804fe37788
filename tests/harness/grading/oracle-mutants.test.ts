import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { parse } from 'yaml';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { applyMutants, gradeTree, loadMutants, mutantGroups, oracleDir, type GradeResult, type Mutant } from '../../../harness/index.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, SLACK, tree } from './hostile-trees.js';

const ORACLE = oracleDir('sqlcsv');
const REFERENCE = path.join(ORACLE, 'reference');
const USAGE = 'usage: python3 -m sqlcsv --data DIR [--format table|csv|json] SQL\n';

/**
 * `npm test` packs the mutants eight to a tree (GROUP_SIZE, never two that break a common
 * requirement): each group's tree must fail exactly the union of its recorded breaks. Since
 * every pinned sentence of the spec got a mutant (issue 20) there are more groups than
 * `npm test` can afford, so it grades one SLICE of them, at most SLICE_GROUPS groups (what it
 * graded before): slice k holds the groups whose index is k modulo the number of slices, and
 * k turns with the UTC day, so that many consecutive days of runs grade every group.
 * RDH_ORACLE_MUTANTS=slice:K picks a slice (to reproduce a day's run). It also grades a SAMPLE
 * alone, both ways (fast path and one interpreter per case). The whole cross-check (every
 * mutant alone, both ways) is `npm run mutants:oracle`, which sets RDH_ORACLE_MUTANTS=all.
 */
const ALL = process.env.RDH_ORACLE_MUTANTS === 'all';
const GROUP_SIZE = 8;
const SLICE_GROUPS = 11;
/** Graded alone and both ways in `npm test`: an output-format mutant (the CRLF cascade of item 2), the one breaking four requirements, natural order (item 3), an error path (item 1). */
const SAMPLE = ['m-csv-crlf-terminators', 'm-aggregate-name-lower-case', 'm-groups-sorted', 'm-unknown-order-key-ignored'];

/** Per-case verdicts of a grading, keyed by case id: what two ways of running must agree on. */
const verdicts = (r: GradeResult) =>
  Object.fromEntries(r.requirements.flatMap((q) => q.failures.map((f) => [f.case, f.reason] as const)).sort(([a], [b]) => a.localeCompare(b)));
const failing = (r: GradeResult) => r.requirements.filter((q) => !q.pass).map((q) => q.id);

/** A program that ignores its input: the same stdout, stderr and exit status for every case. */
function constant(exit: number, stdout: string, stderr: string): Record<string, string> {
  return {
    'sqlcsv/__init__.py': '',
    'sqlcsv/__main__.py': `import sys\nsys.stdout.write(${JSON.stringify(stdout)})\nsys.stderr.write(${JSON.stringify(stderr)})\nsys.exit(${exit})\n`,
  };
}

const MUTANTS = await loadMutants(ORACLE);
const ALONE = ALL ? MUTANTS : MUTANTS.filter((m) => SAMPLE.includes(m.id));
const sources = Object.fromEntries(
  await Promise.all([...new Set(MUTANTS.flatMap((m) => m.patch.map((p) => p.file)))].map(async (f) => [f, await readFile(path.join(REFERENCE, f), 'utf8')] as const)),
);
const PACKED = mutantGroups(MUTANTS, sources, GROUP_SIZE);
const SLICES = Math.ceil(PACKED.length / SLICE_GROUPS);
const SLICE = /^slice:(\d+)$/.exec(process.env.RDH_ORACLE_MUTANTS ?? '')?.[1];
const slice = (SLICE === undefined ? Math.floor(Date.now() / 86_400_000) : Number(SLICE)) % SLICES;
const GROUPS = ALL ? [] : PACKED.filter((_, i) => i % SLICES === slice);
if (!ALL) console.log(`oracle mutants: ${MUTANTS.length} mutants in ${PACKED.length} groups; grading slice ${slice} of ${SLICES} (RDH_ORACLE_MUTANTS=slice:${slice}): ${GROUPS.length} groups`);

/** coverage.yaml's sentence id -> the cases that must fail when that sentence is violated. */
const SENTENCE_CASES: Record<string, string[]> = Object.fromEntries(
  z
    .array(z.object({ id: z.string(), cases: z.array(z.string()).optional() }).passthrough())
    .parse(parse(await readFile(path.join(ORACLE, 'coverage.yaml'), 'utf8')))
    .map((e) => [e.id, e.cases ?? []]),
);
const failedCases = (r: GradeResult) => new Set(r.requirements.flatMap((q) => q.failures.map((f) => f.case)));
/** The mutants none of whose sentence's cases failed: a mapped case that cannot see the bug it is mapped to. */
const unseen = (r: GradeResult, mutants: Mutant[]) => {
  const failed = failedCases(r);
  return mutants.filter((m) => m.sentence !== undefined && !(SENTENCE_CASES[m.sentence] ?? []).some((c) => failed.has(c))).map((m) => `${m.id} (${m.sentence})`);
};
/** Two gradings at once: each container has 2 CPUs, and a 2-core machine gains nothing from more. */
const queue = new PQueue({ concurrency: 2 });
let root: Promise<string> | undefined;

async function mutated(name: string, mutants: Mutant[]): Promise<string> {
  root ??= mkdtemp(path.join(tmpdir(), 'rdh-mutants-'));
  const dir = path.join(await root, name);
  await applyMutants(REFERENCE, mutants, dir);
  return dir;
}

describe('mutant groups (pure)', () => {
  it('hold every mutant once, no two in a group break a common requirement, and every requirement is broken in some group', () => {
    const grouped = mutantGroups(MUTANTS, sources, GROUP_SIZE);
    expect(grouped.flat().map((m) => m.id).sort()).toEqual(MUTANTS.map((m) => m.id).sort());
    for (const g of grouped) {
      const breaks = g.flatMap((m) => m.breaks);
      expect(new Set(breaks).size).toBe(breaks.length);
      expect(g.filter((m) => m.apart?.some((id) => g.some((o) => o.id === id))).map((m) => m.id)).toEqual([]);
      expect(g.length).toBeLessThanOrEqual(GROUP_SIZE);
    }
    expect(new Set(grouped.flat().flatMap((m) => m.breaks)).size).toBe(42);
    expect(SAMPLE.every((id) => MUTANTS.some((m) => m.id === id))).toBe(true);
    expect(MUTANTS.flatMap((m) => m.apart ?? []).filter((id) => !MUTANTS.some((o) => o.id === id))).toEqual([]);
    // The slices partition the groups: over SLICES days every group is graded once.
    const sliced = Array.from({ length: SLICES }, (_, k) => grouped.filter((_, i) => i % SLICES === k));
    expect(sliced.flat().length).toBe(grouped.length);
    expect(Math.max(...sliced.map((g) => g.length))).toBeLessThanOrEqual(SLICE_GROUPS);
  });
});

describe.skipIf(!HAS_DOCKER)('the oracle discriminates per requirement (graded in Docker)', { timeout: DOCKER_TIMEOUT * 4 }, () => {
  it.concurrent.each(GROUPS.map((g, i) => [`group ${i + 1}: ${g.map((m) => m.id).join(' + ')}`, g] as const))(
    '%s fails exactly the union of the requirements its mutants are recorded to break',
    async (_name, group) => {
      const dir = await mutated(`group-${GROUPS.indexOf(group)}`, group);
      const fast = await queue.add(() => gradeTree({ spec: 'sqlcsv', tree: dir, ...SLACK, mode: 'fork' }));
      expect(failing(fast!)).toEqual([...new Set(group.flatMap((m) => m.breaks))].sort());
      // In a group another member may have failed the case; the full run checks each alone.
      expect(unseen(fast!, group)).toEqual([]);
    },
  );

  it.concurrent.each(ALONE.map((m) => [m.id, m] as const))(
    '%s alone fails exactly the requirements it is recorded to break, and the fast path and one interpreter per case agree on every case',
    async (_id, m) => {
      const dir = await mutated(m.id, [m]);
      const fast = await queue.add(() => gradeTree({ spec: 'sqlcsv', tree: dir, ...SLACK, mode: 'fork' }));
      expect(failing(fast!)).toEqual([...m.breaks].sort());
      // The cases coverage.yaml maps to the sentence this mutant violates must see it.
      expect(unseen(fast!, [m])).toEqual([]);
      const slow = await queue.add(() => gradeTree({ spec: 'sqlcsv', tree: dir, ...SLACK, mode: 'exec' }));
      expect(verdicts(slow!)).toEqual(verdicts(fast!));
    },
  );

  it(`item 1: programs that ignore their input (every exit status 0-3, fixed outputs${ALL ? ', crossed' : ''}) earn 0/42`, async () => {
    const family: Array<[number, string, string]> = [];
    // `npm test`: every exit status with no output, and each fixed output once (with the status a
    // program printing it would most likely use); `mutants:oracle` crosses every output with every status.
    const outputs = ['', 'name\n', USAGE, '[]\n'];
    for (const exit of [0, 1, 2, 3]) {
      for (const stdout of ALL ? outputs : outputs.filter((o) => o === '' || (o === USAGE ? exit === 2 : exit === 0))) family.push([exit, stdout, exit === 0 ? '' : 'sqlcsv: error\n']);
    }
    family.push([0, 'name,age\n', 'warning\n'], [2, '', ''], [3, '', '']);
    const scores = await Promise.all(
      family.map(([exit, stdout, stderr]) =>
        queue.add(async () => {
          const result = await gradeTree({ spec: 'sqlcsv', tree: await tree(constant(exit, stdout, stderr)), ...SLACK });
          return `exit ${exit} stdout ${JSON.stringify(stdout)} stderr ${JSON.stringify(stderr)}: ${result.satisfied}/42${result.satisfied ? ` (${result.requirements.filter((r) => r.pass).map((r) => r.id).join(',')})` : ''}`;
        }),
      ),
    );
    expect(scores.filter((s) => !s.endsWith(': 0/42'))).toEqual([]);
  });
});
