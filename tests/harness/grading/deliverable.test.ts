import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSPACE_SCAFFOLDING } from '../../../engine/index.js';
import { gradeTree, specDir } from '../../../harness/index.js';
import { TREE_LIMITS, stageTree } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, REFERENCE, SLACK, smallOracle, tree, removeScratch } from './hostile-trees.js';

afterAll(removeScratch);

/**
 * The graded tree is the deliverable (issue 20). A merge copies each child's whole tree,
 * scaffolding included, under `.children/<slug>/`, so the copies nest as deep as the tree: at
 * 4 levels below a root and 4 children each, 4 + 16 + 64 + 256 = 340 copies. None of it is the
 * deliverable; none of it may be graded, counted as tests carried, or push a root past the
 * staging limits.
 */
const CHILDREN = WORKSPACE_SCAFFOLDING.children;
const LEVELS = 4;
const BRANCHING = 4;
const COPIES = [1, 2, 3, 4].reduce((n, level) => n + BRANCHING ** level, 0); // 340
/** Each node's own work: the reference, 2 test files and 60 notes (a node of 76 entries). */
const NOTES = 60;
const TESTS = ['test_parse.py', 'select_test.py'];

async function nodeTree(children: string | null): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-deliv-node-'));
  await cp(REFERENCE, dir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  await mkdir(path.join(dir, 'tests'));
  for (const t of TESTS) await writeFile(path.join(dir, 'tests', t), 'def test_x():\n    assert True\n');
  await mkdir(path.join(dir, 'notes'));
  for (let i = 0; i < NOTES; i++) await writeFile(path.join(dir, 'notes', `n${i}.md`), `note ${i}\n`);
  // As merge-loop.ts does: each child's whole workspace, its own .children/ included (cp(1): fast).
  if (children) {
    await mkdir(path.join(dir, CHILDREN));
    for (let c = 0; c < BRANCHING; c++) execFileSync('cp', ['-R', children, path.join(dir, CHILDREN, `c${c}`)]);
  }
  return dir;
}

let deep: Promise<string> | undefined;
/** A root with LEVELS levels of BRANCHING children below it, built the way the merges build it (once per file). */
function deepRoot(): Promise<string> {
  deep ??= (async () => {
    let below: string | null = null;
    for (let level = LEVELS; level >= 0; level--) below = await nodeTree(below);
    return below!;
  })();
  return deep;
}

async function entriesUnder(dir: string): Promise<number> {
  return (await readdir(dir, { recursive: true })).length;
}

describe('the engine names its scaffolding once', () => {
  it('.children is the scaffolding the merge writes to', () => {
    expect(WORKSPACE_SCAFFOLDING).toEqual({ children: '.children', names: ['.children'] });
  });
});

describe('staging: the deliverable alone, whatever the scaffolding holds', () => {
  let root: string;
  beforeAll(async () => {
    root = await deepRoot();
  }, 120_000);

  it(`a root with ${COPIES} nested copies is past the entry limit, but its deliverable is staged whole and nothing of .children`, async () => {
    const scaffolding = await entriesUnder(path.join(root, CHILDREN));
    expect(scaffolding).toBeGreaterThan(TREE_LIMITS.entries);
    // The tree as it was staged before: past the limit, so undeliverable and scored 0.
    expect((await stageTree(root, await mkdtemp(path.join(tmpdir(), 'rdh-deliv-old-')))).undeliverable).toBe(`the tree has more than ${TREE_LIMITS.entries} entries`);
    const dest = await mkdtemp(path.join(tmpdir(), 'rdh-deliv-dest-'));
    const staged = await stageTree(root, dest, TREE_LIMITS, { exclude: WORKSPACE_SCAFFOLDING.names });
    expect(staged.undeliverable).toBeNull();
    expect((await readdir(dest)).sort()).toEqual(['notes', 'sqlcsv', 'tests']);
    expect(await entriesUnder(dest)).toBe((await entriesUnder(root)) - scaffolding - 1);
  });

  it('a link of the deliverable into the scaffolding is left out and noted, as a link out of the tree would be', async () => {
    const dir = await tree({ 'sqlcsv/__init__.py': '', [`${CHILDREN}/a/sqlcsv/parser.py`]: 'x = 1\n' });
    await symlink(`../${CHILDREN}/a/sqlcsv/parser.py`, path.join(dir, 'sqlcsv', 'parser.py'));
    await symlink(CHILDREN, path.join(dir, 'kids'));
    const dest = await mkdtemp(path.join(tmpdir(), 'rdh-deliv-dest-'));
    const staged = await stageTree(dir, dest, TREE_LIMITS, { exclude: WORKSPACE_SCAFFOLDING.names });
    expect(staged.skipped).toEqual([
      { path: 'kids', why: 'link into the scaffolding' },
      { path: 'sqlcsv/parser.py', why: 'link into the scaffolding' },
    ]);
    expect((await readdir(dest, { recursive: true })).sort()).toEqual(['sqlcsv', 'sqlcsv/__init__.py']);
  });
});

describe.skipIf(!HAS_DOCKER)('grading: a deep tree is graded on its deliverable', { timeout: DOCKER_TIMEOUT }, () => {
  const quick = async () => ({ oracleDir: await smallOracle(), specDir: specDir('sqlcsv'), ...SLACK });

  it(`a depth-${LEVELS} root with ${BRANCHING} children a level is graded (not undeliverable), carries its own tests only, and reports the scaffolding apart`, async () => {
    const root = await deepRoot();
    const result = await gradeTree({ spec: 'sqlcsv', tree: root, ...(await quick()) });
    expect(result.undeliverable).toBeNull();
    expect([result.casesPassed, result.casesTotal]).toEqual([11, 11]);
    expect(result.testFiles).toBe(TESTS.length);
    const files = 10 + TESTS.length + NOTES; // the reference's 10 files, the tests, the notes
    expect(result.scaffolding).toEqual({
      entries: await entriesUnder(path.join(root, CHILDREN)) + 1,
      files: COPIES * files,
      bytes: expect.any(Number),
      testFiles: COPIES * TESTS.length,
      partial: false,
    });
    expect(result.scaffolding!.entries).toBeGreaterThan(TREE_LIMITS.entries);
  });

  it('tests carried count the deliverable\'s test files, never the children\'s copies under .children/', async () => {
    const dir = await tree({
      'tests/test_root.py': '',
      'sqlcsv/engine_test.py': '',
      [`${CHILDREN}/a/tests/test_a.py`]: '',
      [`${CHILDREN}/a/${CHILDREN}/b/tests/test_b.py`]: '',
      [`${CHILDREN}/c/tests/test_c.py`]: '',
    });
    const result = await gradeTree({ spec: 'sqlcsv', tree: dir, ...(await quick()) });
    expect(result.testFiles).toBe(2);
    expect(result.scaffolding).toMatchObject({ files: 3, testFiles: 3, partial: false });
  });

  it('code of the deliverable that runs from .children/ fails: the oracle grades what the deliverable holds, not what the engine kept beside it', async () => {
    // The root's package is a shim whose modules (its __main__ included) are read from a child's copy.
    const dir = await tree({
      'sqlcsv/__init__.py': "import os\n__path__[:] = [os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), '.children', 'impl', 'sqlcsv')]\n",
    });
    await cp(REFERENCE, path.join(dir, CHILDREN, 'impl'), { recursive: true, filter: (src) => !src.includes('__pycache__') });
    const result = await gradeTree({ spec: 'sqlcsv', tree: dir, ...(await quick()) });
    expect(result.casesPassed).toBe(0);
  });
});
