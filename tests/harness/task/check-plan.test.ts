import { describe, expect, it } from 'vitest';
import { renderCheck } from '../../../harness/index.js';
import { randomSubset, twoGroupings, constantFamily, gradingPlan, mutantSample, SLICE_GROUPS, distinctOutputs, sentenceMapHoles, specSentences, constantProgram, coveringCases, twinCases, settledGrading } from '../../../harness/testing.js';
import type { OracleCase } from '../../../harness/index.js';

/** A mutant of one requirement, patching text of its own, so any set of them packs together. */
const mutant = (i: number, breaks: string[], extra: Partial<{ output: boolean; apart: string[] }> = {}) => ({
  id: `m-${i}`,
  description: 'x',
  breaks,
  patch: [{ file: 'p.py', find: `line${i};`, replace: 'bug' }],
  ...extra,
});
const REQ = (i: number) => `R${String((i % 30) + 1).padStart(2, '0')}`;
const MUTANTS = Array.from({ length: 300 }, (_, i) => mutant(i, [REQ(i)]));
const SOURCES = { 'p.py': MUTANTS.map((_, i) => `line${i};`).join('\n') };
const input = { cases: [], mutants: MUTANTS, referenceSources: SOURCES, defects: null };

describe('the grading plan', () => {
  it('grades one slice of the packed groups, turning with the day, and the slices cover every group', () => {
    const slices = [0, 1, 2, 3].map((slice) => gradingPlan(input, { parts: ['mutants'], exhaustive: { mutants: false, corpus: false }, slice }).trees.filter((t) => t.name.startsWith('group')));
    const all = slices.slice(0, 3).flatMap((s) => s.flatMap((t) => t.members));
    // 300 mutants of 30 requirements, 8 to a group with distinct breaks: 38 groups, 4 slices.
    expect(slices.every((s) => s.length <= SLICE_GROUPS)).toBe(true);
    expect(new Set([...all, ...slices[3]!.flatMap((t) => t.members)]).size).toBe(300);
    for (const s of slices) for (const t of s) expect(new Set(t.members.map((id) => MUTANTS.find((m) => m.id === id)!.breaks[0])).size).toBe(t.members.length);
    const day = (d: number) => gradingPlan(input, { parts: ['mutants'], exhaustive: { mutants: false, corpus: false }, now: d * 86_400_000 }).trees[0]!.name;
    expect(day(1)).not.toBe(day(2));
  });

  it('grades a sample alone both ways: the widest output mutant and the widest cascade first', () => {
    const mutants = [...MUTANTS.slice(0, 10), mutant(900, ['R01', 'R02', 'R03']), mutant(901, ['R04', 'R05'], { output: true })];
    expect(mutantSample(mutants, 0).slice(0, 2)).toEqual(['m-901', 'm-900']);
    expect(mutantSample(mutants, 0)).toHaveLength(4);
    const trees = gradingPlan({ ...input, mutants }, { parts: ['mutants'], exhaustive: { mutants: false, corpus: false }, slice: 0 }).trees;
    expect(trees.filter((t) => t.kind === 'mutants' && t.mode === 'exec').map((t) => t.members[0]).sort()).toEqual(mutantSample(mutants, 0).sort());
  });

  it('quick (what npm test runs): one constant of three a day, two groups and one mutant alone both ways, two defect groups; over the days every group and defect is visited', () => {
    const cases = [0, 0, 1].map((exit, i) => ({ id: `c${i}`, req: 'R01', args: [], expect: { exit, stdout: exit ? '' : 'a\n' } })) as unknown as OracleCase[];
    const defects = Array.from({ length: 18 }, (_, i) => ({ id: `d${i}`, requirement: REQ(i % 9), breaks: [REQ(i % 9)] }));
    const plan = (slice: number) => gradingPlan({ ...input, cases, defects }, { parts: ['baselines', 'mutants', 'corpus'], exhaustive: { mutants: false, corpus: false }, quick: true, slice }).trees;
    const kinds = (t: ReturnType<typeof plan>) => t.map((x) => (x.kind === 'mutants' ? `${x.kind}:${x.mode}:${x.members.length > 1 ? 'group' : 'alone'}` : x.kind));
    expect(kinds(plan(0))).toEqual(['reference', 'empty', 'constant', 'mutants:fork:group', 'mutants:fork:group', 'mutants:fork:alone', 'mutants:exec:alone', 'corpus', 'corpus', 'corpus']);
    const days = Array.from({ length: 40 }, (_, d) => plan(d));
    const members = (kind: string, pick: (t: ReturnType<typeof plan>[number]) => boolean) => new Set(days.flatMap((t) => t.filter((x) => x.kind === kind && pick(x)).flatMap((x) => x.members)));
    expect(members('mutants', (x) => x.members.length > 1).size).toBe(300);
    expect(members('corpus', () => true).size).toBe(18);
    // The constant turns with the day: silence with status 0, an error with status 1, the commonest expected output.
    const constants = (t: ReturnType<typeof plan>) => t.filter((x) => x.kind === 'constant').map((x) => x.name);
    expect(days.slice(0, 3).map(constants)).toEqual([[expect.any(String)], [expect.any(String)], [expect.any(String)]]);
    expect(new Set(days.slice(0, 3).flatMap(constants)).size).toBe(3);
    // The mutant graded alone turns with the slice: 38 groups, two a day, 19 slices, 19 mutants.
    expect(new Set(days.map((t) => t.find((x) => x.kind === 'mutants' && x.mode === 'exec')!.members[0])).size).toBe(19);
  });

  it('quick: the empty tree and the constant on cases covering every requirement, the exec twin there and on its broken requirements; the reference and fork gradings on every case', () => {
    const c = (id: string, exit: number, stdout = '') => ({ id, req: id.slice(0, 3), args: [], expect: { exit, stdout } }) as unknown as OracleCase;
    const cases = [c('R01-a', 1), c('R01-b', 0, 'a\n'), c('R01-c', 0, 'a\n'), c('R01-d', 0, 'b\n'), c('R02-a', 0, 'x\n'), c('R02-b', 0, 'y\n'), c('R02-c', 2)];
    // Per requirement: its first exit-0 case, then the first expecting another exit status (else another output).
    expect(coveringCases(cases)).toEqual(['R01-a', 'R01-b', 'R02-a', 'R02-c']);
    expect(coveringCases(cases, 3)).toEqual(['R01-a', 'R01-b', 'R01-d', 'R02-a', 'R02-b', 'R02-c']);
    expect(twinCases(cases, ['R01'])).toEqual(['R01-a', 'R01-b', 'R01-c', 'R01-d', 'R02-a', 'R02-c']);
    const mutants = [mutant(0, ['R01']), mutant(1, ['R02'])];
    const plan = (quick: boolean) => gradingPlan({ cases, mutants, referenceSources: { 'p.py': 'line0;\nline1;' }, defects: null }, { parts: ['baselines', 'mutants'], exhaustive: { mutants: false, corpus: false }, quick, slice: 0 });
    const quick = plan(true);
    expect(quick.trees.map((t) => `${t.name}: ${t.cases?.join(' ') ?? 'every case'}`)).toMatchInlineSnapshot(`
      [
        "reference: every case",
        "empty tree: R01-a R01-b R02-a R02-c",
        "constant: exit 0, stdout "", stderr "": R01-a R01-b R02-a R02-c",
        "group 1 (m-0 + m-1): every case",
        "m-0: every case",
        "m-0 (exec): R01-a R01-b R01-c R01-d R02-a R02-c",
      ]
    `);
    expect(quick.notes.filter((n) => /cases/.test(n))).toEqual([
      'baselines: the empty tree and the constant on 4 of 7 cases, covering every requirement (quick)',
      'modes: m-0 (exec) on 6 of 7 cases (quick)',
    ]);
    expect(plan(false).trees.filter((t) => t.cases)).toEqual([]);
  });

  it('a baseline that earns a requirement on its subset is graded again on every case; a zero there stands, and so does an exec twin', async () => {
    const calls: Array<readonly string[] | undefined> = [];
    const grade = (earns: (ids?: readonly string[]) => number) => async (ids?: readonly string[]) => {
      calls.push(ids);
      return { satisfied: earns(ids) };
    };
    const subset = ['R01-a', 'R02-a'];
    // A constant that passes both of R02's chosen cases but not all of R02's: the whole oracle decides.
    expect(await settledGrading({ name: 'constant', kind: 'constant', cases: subset }, grade((ids) => (ids ? 1 : 0)))).toEqual({ result: { satisfied: 0 } });
    expect(calls).toEqual([subset, undefined]);
    calls.length = 0;
    expect(await settledGrading({ name: 'empty tree', kind: 'empty', cases: subset }, grade(() => 0))).toEqual({ result: { satisfied: 0 }, cases: subset });
    expect(await settledGrading({ name: 'm (exec)', kind: 'mutants', cases: subset }, grade(() => 1))).toEqual({ result: { satisfied: 1 }, cases: subset });
    expect(await settledGrading({ name: 'reference', kind: 'reference' }, grade(() => 2))).toEqual({ result: { satisfied: 2 } });
    expect(calls).toEqual([subset, subset, undefined]);
  });

  it('exhaustive: every mutant alone, both ways; --mutants: those alone', () => {
    const all = gradingPlan(input, { parts: ['mutants'], exhaustive: { mutants: true, corpus: false } }).trees;
    expect(all).toHaveLength(600);
    expect(gradingPlan(input, { parts: ['mutants'], exhaustive: { mutants: false, corpus: false }, mutants: ['m-3'] }).trees.map((t) => t.name)).toEqual(['m-3']);
  });

  it('two defect groupings with disjoint breaks in each group and no pair together twice, and seeded subsets', () => {
    const defects = Array.from({ length: 42 }, (_, i) => ({ id: `d-r${i}`, requirement: REQ(i), breaks: [REQ(i), ...(i % 7 === 0 ? [REQ(i + 1)] : [])] }));
    const { first, second } = twoGroupings(defects);
    const pairs = (g: typeof first) => g.flatMap((x) => x.flatMap((a) => x.filter((b) => b !== a).map((b) => `${a.id} ${b.id}`)));
    for (const grouping of [first, second]) {
      expect(grouping.flat().map((d) => d.id).sort()).toEqual(defects.map((d) => d.id).sort());
      for (const g of grouping) expect(new Set(g.flatMap((d) => d.breaks)).size).toBe(g.flatMap((d) => d.breaks).length);
    }
    expect(pairs(second).filter((p) => pairs(first).includes(p))).toEqual([]);
    const subset = randomSubset(defects, 20);
    expect(subset.size).toBe(8);
    expect([...randomSubset(defects, 20)]).toEqual([...subset]);
    expect([...randomSubset(defects, 2020)]).not.toEqual([...subset]);
  });

  it('constant programs: every exit status 0-3 and the outputs most cases expect; crossed when exhaustive', () => {
    const c = (id: string, stdout: string, exit = 0) => ({ id, req: 'R01', args: [], expect: { exit, stdout }, sqlite: 'same' }) as OracleCase;
    const family = constantFamily([c('R01-a', 'usage\n', 2), c('R01-b', 'usage\n', 2), c('R01-c', 'x\n')], false);
    expect(family.map((t) => t.name)).toMatchInlineSnapshot(`
      [
        "constant: exit 0, stdout "", stderr """,
        "constant: exit 1, stdout "", stderr "error\\n"",
        "constant: exit 2, stdout "", stderr "error\\n"",
        "constant: exit 3, stdout "", stderr "error\\n"",
        "constant: exit 2, stdout "usage\\n", stderr "error\\n"",
        "constant: exit 0, stdout "x\\n", stderr """,
        "constant: exit 2, stdout "", stderr """,
        "constant: exit 3, stdout "", stderr """,
        "constant: exit 0, stdout "", stderr "warning\\n"",
      ]
    `);
    expect(constantFamily([c('R01-a', 'usage\n', 2)], true)).toHaveLength(16);
  });

  it('a constant program is the deliverable: its __main__ entry points print, the others are empty', () => {
    expect(constantProgram(['pkg/__init__.py', 'pkg/__main__.py'], { exit: 3, stdout: 'a"\n', stderr: '' })).toMatchInlineSnapshot(`
      {
        "pkg/__init__.py": "",
        "pkg/__main__.py": "import sys
      sys.stdout.write("a\\"\\n")
      sys.stderr.write("")
      sys.exit(3)
      ",
      }
    `);
  });
});

describe('coverage', () => {
  const SPEC = ['# t', '', 'Intro, not numbered.', '', '## 1. Usage', '', 'Run it. Then stop.', '', '* An item', '  that wraps.', '', '    code is left out', '', '## 2. Requirements', '', 'Never mapped.'].join('\n');
  const entry = (id: string, sentence: string, cases: string[] = ['R01-a']) => ({ id, section: '1', sentence, cases });

  it('reads the sentences of the numbered sections before the requirements', () => {
    expect(specSentences(SPEC)).toEqual([['1', 'Run it.'], ['1', 'Then stop.'], ['1', '* An item that wraps.']]);
  });

  it('names a sentence without an entry, a stale entry, an unknown case, a repeated id, and a pinned sentence no mutant violates', () => {
    const map = [entry('s1-01', 'Run it.'), entry('s1-01', 'Gone.'), entry('s1-03', '* An item that wraps.', ['R09-x'])];
    const row = sentenceMapHoles(SPEC, map, new Set(['R01-a']), [{ id: 'm-a', breaks: ['R01'], sentence: 's1-01' }, { id: 'm-b', breaks: ['R01'] }]);
    expect(row.failures).toMatchInlineSnapshot(`
      [
        "sentence without an entry: §1 Then stop.",
        "entry no longer in SPEC.md: §1 Gone.",
        "s1-03: unknown case R09-x",
        "s1-01: id repeated",
        "s1-03: pinned, but no mutant violates it",
        "m-b: names no sentence",
      ]
    `);
  });

  it('needs two cases per requirement that no single output passes', () => {
    const c = (id: string, exit: number, stdout?: string) => ({ id, req: id.slice(0, 3), args: [], expect: { exit, ...(stdout === undefined ? {} : { stdout }) }, sqlite: 'same' }) as OracleCase;
    const cases = [c('R01-a', 0, 'x\n'), c('R01-b', 0, 'y\n'), c('R02-a', 0, 'x\n'), c('R02-b', 0, 'x\n'), c('R03-a', 1), c('R03-b', 0)];
    const row = distinctOutputs(cases, { R01: ['R01-a', 'R01-b'], R02: ['R02-a', 'R02-b'], R03: ['R03-a', 'R03-b'] });
    expect(row.failures).toEqual(['R02: 2 case(s), no two that a single output cannot pass both']);
  });
});

describe('the table', () => {
  it('one row per property, failures under a failing row, and a summary line naming what failed', () => {
    const text = renderCheck({
      version: 1,
      task: 'toy',
      exhaustive: { mutants: false, corpus: false },
      pass: false,
      gradings: 3,
      elapsedMs: 12_345,
      properties: [
        { property: 'reference-passes', status: 'pass', detail: '3/3 requirements, every case', failures: [] },
        { property: 'isolation', status: 'fail', detail: '1 case(s) depend on another', failures: ['case R01-x (R01) fails under m-two'] },
        { property: 'modes-agree', status: 'skip', detail: 'the mutants part was left out', failures: [] },
      ],
    });
    expect(text).toMatchInlineSnapshot(`
      "property          status  detail
      ----------------  ------  ------
      reference-passes  PASS    3/3 requirements, every case
      isolation         FAIL    1 case(s) depend on another
                          - case R01-x (R01) fails under m-two
      modes-agree       SKIP    the mutants part was left out

      toy: INVALID (isolation): 1 passed, 1 failed, 1 skipped of 3 properties; 3 gradings in 12 s
      "
    `);
  });
});
