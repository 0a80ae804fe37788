import { describe, expect, it } from 'vitest';
import { GradedTree, baselineProperties, corpusClean, corpusDefects, isolation, evaluateCheck, modesAgree, mutantPerRequirement, mutantsExact, outputMutants, sentenceKills } from '../../../harness/testing.js';

/**
 * The battery's pure checks on synthetic gradings of a three-requirement task: each planted
 * fault is named, and each mechanism's test fails when the mechanism is removed.
 */
const REQS = ['R01', 'R02', 'R03'];

function graded(name: string, kind: GradedTree['kind'], members: string[], failedCases: Array<[string, string]>, mode: 'fork' | 'exec' = 'fork'): GradedTree {
  const failing = [...new Set(failedCases.map(([, r]) => r))].sort();
  return {
    name,
    kind,
    members,
    mode,
    satisfied: REQS.length - failing.length,
    total: REQS.length,
    failing,
    passing: REQS.filter((r) => !failing.includes(r)),
    failedCases: failedCases.map(([c, req]) => ({ case: c, req, reason: 'stdout differs at line 1' })),
  };
}

const MUTANTS = [
  { id: 'm-one', breaks: ['R01'], sentence: 's1-01' },
  { id: 'm-two', breaks: ['R02'], sentence: 's1-02' },
  { id: 'm-three', breaks: ['R03'], output: true, sentence: 's1-03' },
  { id: 'm-cascade', breaks: ['R01', 'R02'], sentence: 's1-01' },
];
const facts = (trees: GradedTree[], outputRequirements = ['R03']) => ({ mutants: MUTANTS, requirements: REQS, outputRequirements, trees });

describe('baselines', () => {
  it('name a failing reference case, an empty tree or a constant that earns something', () => {
    const rows = baselineProperties([
      graded('reference', 'reference', [], [['R02-a', 'R02']]),
      graded('empty tree', 'empty', [], REQS.map((r) => [`${r}-a`, r])),
      graded('constant: exit 0', 'constant', [], [['R01-a', 'R01'], ['R02-a', 'R02']]),
    ]);
    expect(rows.map((r) => [r.property, r.status, r.failures])).toMatchInlineSnapshot(`
      [
        [
          "reference-passes",
          "fail",
          [
            "reference: case R02-a (R02) fails: stdout differs at line 1",
          ],
        ],
        [
          "empty-tree-zero",
          "pass",
          [],
        ],
        [
          "constant-programs-zero",
          "fail",
          [
            "constant: exit 0 earns 1/3 (R03)",
          ],
        ],
      ]
    `);
  });
});

describe('baselines, the quick form', () => {
  it('name the one constant graded (a different one each day) when it earns nothing', () => {
    const rows = baselineProperties([graded('constant: exit 1, stdout "", stderr "error\\n"', 'constant', [], REQS.map((r) => [`${r}-a`, r]))]);
    expect(rows.find((r) => r.property === 'constant-programs-zero')).toMatchObject({ status: 'pass', detail: '1 program that ignores its input (constant: exit 1, stdout "", stderr "error\\n"), 0/3' });
  });

  it('say how many cases settled a zero when a subset did', () => {
    const onSubset = { ...graded('empty tree', 'empty', [], REQS.map((r) => [`${r}-a`, r])), cases: REQS.flatMap((r) => [`${r}-a`, `${r}-b`]) };
    expect(baselineProperties([onSubset]).find((r) => r.property === 'empty-tree-zero')).toMatchObject({ status: 'pass', detail: '0/3, failing a case of every requirement among 6 cases' });
  });
});

describe('mutants', () => {
  it('a mutant that breaks an undeclared requirement, or spares a declared one, is named', () => {
    const row = mutantsExact(facts([graded('m-one', 'mutants', ['m-one'], [['R01-a', 'R01'], ['R02-b', 'R02']]), graded('m-cascade', 'mutants', ['m-cascade'], [['R01-a', 'R01']]), graded('m-two', 'mutants', ['m-two'], [['R02-a', 'R02']])]));
    expect([row.status, row.failures]).toMatchInlineSnapshot(`
      [
        "fail",
        [
          "m-one: fails R02, undeclared",
          "m-cascade: passes R02, declared broken",
        ],
      ]
    `);
  });

  it('a packed group must fail the union of its members, and exec gradings are compared, not counted', () => {
    const group = graded('group 1', 'mutants', ['m-one', 'm-two'], [['R01-a', 'R01'], ['R02-a', 'R02']]);
    expect(mutantsExact(facts([group, graded('group 1 (exec)', 'mutants', ['m-one', 'm-two'], [], 'exec')])).status).toBe('pass');
  });

  it('every requirement needs a mutant declared to break it alone', () => {
    const row = mutantPerRequirement({ ...facts([]), mutants: MUTANTS.filter((m) => m.id !== 'm-two') });
    expect(row.failures).toEqual(['R02: no mutant declares breaking R02 alone']);
    expect(mutantPerRequirement(facts([])).status).toBe('pass');
  });

  it('output mutants may fail output requirements only, declared and graded; skipped when no requirement is about output', () => {
    const wide = { ...facts([graded('m-three', 'mutants', ['m-three'], [['R03-a', 'R03'], ['R01-x', 'R01']])]) };
    expect(outputMutants(wide).failures).toEqual(['m-three: fails R01, not output requirements']);
    const declared = { ...facts([]), mutants: [...MUTANTS, { id: 'm-out', breaks: ['R02', 'R03'], output: true }] };
    expect(outputMutants(declared).failures).toEqual(['m-out: declares breaking R02, not output requirements']);
    expect(outputMutants(facts([], [])).status).toBe('skip');
  });

  it('the cases mapped to the violated sentence must be among the failures', () => {
    const sentences = new Map([['s1-01', ['R01-a']], ['s1-02', ['R02-a']], ['s1-03', ['R03-a']]]);
    const row = sentenceKills(facts([graded('m-one', 'mutants', ['m-one'], [['R01-b', 'R01']]), graded('m-two', 'mutants', ['m-two'], [['R02-a', 'R02']])]), sentences);
    expect(row.failures).toEqual(['m-one in m-one: no case mapped to s1-01 fails']);
    expect(sentenceKills(facts([]), null).status).toBe('skip');
  });

  it('fork and exec gradings of one tree must agree case by case', () => {
    const row = modesAgree([graded('m-one', 'mutants', ['m-one'], [['R01-a', 'R01']]), graded('m-one (exec)', 'mutants', ['m-one'], [['R01-a', 'R01'], ['R01-b', 'R01']], 'exec')]);
    expect(row.failures).toEqual(['m-one (exec): exec only: R01-b: stdout differs at line 1']);
  });

  it('an exec grading of a subset is compared with the fork grading on that subset only, case by case there', () => {
    const fork = graded('m-one', 'mutants', ['m-one'], [['R01-a', 'R01'], ['R01-z', 'R01']]);
    const exec = (failed: Array<[string, string]>) => ({ ...graded('m-one (exec)', 'mutants', ['m-one'], failed, 'exec'), cases: ['R01-a', 'R01-b', 'R02-a'] });
    // R01-z was not graded by exec: not a difference. Within the subset every difference counts.
    expect(modesAgree([fork, exec([['R01-a', 'R01']])])).toMatchObject({ status: 'pass', detail: '1 trees graded both ways, identical case by case (1 on a subset of the cases)' });
    expect(modesAgree([fork, exec([])]).failures).toEqual(['m-one (exec): fork only: R01-a: stdout differs at line 1']);
    expect(modesAgree([fork, exec([['R01-a', 'R01'], ['R02-a', 'R02']])]).failures).toEqual(['m-one (exec): exec only: R02-a: stdout differs at line 1']);
  });
});

describe('isolation', () => {
  const leak = [graded('m-two', 'mutants', ['m-two'], [['R02-a', 'R02'], ['R01-leak', 'R01']])];

  it('names a case whose requirement a mutant of another, undeclared requirement breaks', () => {
    const row = isolation(MUTANTS, {}, leak);
    expect(row.failures).toMatchInlineSnapshot(`
      [
        "case R01-leak (R01) fails under m-two, which declares breaking R02: R01 declares no dependency on them in task.yaml",
      ]
    `);
  });

  it('accepts it when task.yaml declares the dependency, and never a dependency the other way round', () => {
    expect(isolation(MUTANTS, { R01: ['R02'] }, leak).status).toBe('pass');
    expect(isolation(MUTANTS, { R02: ['R01'] }, leak).status).toBe('fail');
  });
});

describe('the SIMULATED corpus', () => {
  const DEFECTS = [
    { id: 'd-r01-a', requirement: 'R01', breaks: ['R01'] },
    { id: 'd-r02-a', requirement: 'R02', breaks: ['R02', 'R03'] },
    { id: 'd-r03-a', requirement: 'R03', breaks: ['R03'] },
  ];

  it('a defect that breaks more than it declares is named, and so is a requirement without a defect', () => {
    const trees = [graded('corpus, no defect', 'corpus', [], []), graded('defects A1', 'corpus', ['d-r01-a'], [['R01-a', 'R01'], ['R02-a', 'R02']]), graded('defects A2', 'corpus', ['d-r02-a'], [['R02-a', 'R02'], ['R03-a', 'R03']])];
    expect(corpusDefects(DEFECTS, REQS, trees).failures).toEqual(['defects A1 (d-r01-a): fails R02, undeclared']);
    expect(corpusDefects(DEFECTS.slice(0, 2), REQS, trees.slice(2)).failures).toEqual(['R03: no planted defect']);
    expect(corpusClean(trees).status).toBe('pass');
  });

  it('the clean corpus must pass every case', () => {
    expect(corpusClean([graded('corpus, no defect', 'corpus', [], [['R03-a', 'R03']])]).failures).toEqual(['corpus, no defect: case R03-a (R03) fails: stdout differs at line 1']);
  });
});

describe('evaluateCheck', () => {
  const base = {
    requirements: REQS,
    outputRequirements: [],
    dependsOn: {},
    cases: [],
    requirementMap: {},
    mutants: MUTANTS,
    spec: '',
    sentenceMap: { ok: true as const, map: [] },
    corpus: { ok: true as const, defects: [] },
    trees: [],
  };

  it('a part left out gives skipped rows, never a pass', () => {
    const rows = evaluateCheck({ ...base, parts: ['static'] });
    expect(rows.filter((r) => r.status === 'skip').map((r) => r.property)).toEqual([
      'reference-passes', 'empty-tree-zero', 'constant-programs-zero', 'output-mutants', 'mutants-exact', 'isolation', 'sentence-kills', 'modes-agree', 'corpus-clean', 'corpus-defects', 'peers-hold',
    ]);
  });

  it('an unreadable coverage map or a missing corpus fails, naming why', () => {
    const rows = evaluateCheck({ ...base, parts: ['static', 'corpus'], sentenceMap: { ok: false, problem: 'coverage.yaml is not a sentence map' }, corpus: { ok: false, problem: 'no SIMULATED corpus at x' } });
    expect(rows.filter((r) => r.status === 'fail').map((r) => `${r.property}: ${r.detail}`)).toEqual([
      'sentence-map: coverage.yaml is not a sentence map',
      'corpus-clean: no SIMULATED corpus at x',
      'corpus-defects: no SIMULATED corpus at x',
    ]);
  });
});
