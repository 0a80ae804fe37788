import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse, stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CheckReport, EXIT, oracleDir, REPO_ROOT, runCli, specDir } from '../../../harness/index.js';
import { buildPeerTree, bufferIo, corpusDir, loadPeers, moduleSources, peersHold, type GradedTree, type PeerRecipe } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';

/**
 * Peers: real Markdown libraries from Debian packages, graded by `harness task check` beside the
 * reference, each held to the exact requirements its recipe records (oracle/commonmark/peers/).
 * The pure half moves an expected failure and sees the property fail; the Docker half grades the
 * real peers and a copy whose recipe moved markdown-it's expected failure, in one check.
 */
const TASK = 'commonmark';
const REQUIREMENTS = Array.from({ length: 33 }, (_, i) => `R${String(i + 1).padStart(2, '0')}`);
const roots: string[] = [];
afterAll(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

const recipe = (expected: string[]): PeerRecipe => ({
  description: 'a peer',
  packages: [{ name: 'python3-markdown-it', modules: ['markdown_it'] }],
  vendor: 'mdlite/_vendor',
  entry_points: {},
  expected_failures: expected.map((requirement) => ({ requirement, reason: 'recorded with its reason' })),
});
const graded = (failing: string[]): GradedTree => ({
  name: 'peer markdown-it',
  kind: 'peer',
  members: ['markdown-it'],
  mode: 'fork',
  satisfied: 33 - failing.length,
  total: 33,
  failing,
  passing: [],
  failedCases: failing.map((req) => ({ case: `${req}-ex1`, req, reason: 'output differs' })),
});

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** A copy of commonmark's oracle whose peers/ recipes are edited (the recipe modules find harness/, node_modules/ and spec/ two folders up). */
async function oracleCopy(edit: (dir: string) => Promise<void>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-peers-'));
  roots.push(root);
  for (const dir of ['harness', 'node_modules', 'spec']) await symlink(path.join(REPO_ROOT, dir), path.join(root, dir));
  const oracle = path.join(root, 'oracle', TASK);
  await cp(oracleDir(TASK), oracle, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  await edit(path.join(oracle, 'peers'));
  return oracle;
}

describe('peers-hold (pure)', () => {
  it("passes when each peer fails exactly what its recipe records, naming each peer's grade", () => {
    expect(peersHold([{ name: 'markdown-it', recipe: recipe(['R16']) }], [graded(['R16'])])).toMatchInlineSnapshot(`
      {
        "detail": "peers grade as recorded: markdown-it 32/33 (fails R16)",
        "failures": [],
        "property": "peers-hold",
        "status": "pass",
      }
    `);
  });

  it("fails when a peer's expected failure moves: the new failure and the recorded one it passes are both named", () => {
    const moved = peersHold([{ name: 'markdown-it', recipe: recipe(['R15']) }], [graded(['R16'])]);
    expect(moved.status).toBe('fail');
    expect(moved.failures).toMatchInlineSnapshot(`
      [
        "peer markdown-it: now also fails R16, which its recipe does not record (R16: R16-ex1: output differs)",
        "peer markdown-it: now passes R15, which its recipe records as failed (R15: recorded with its reason)",
      ]
    `);
    expect(peersHold([{ name: 'markdown-it', recipe: recipe(['R16']) }], []).failures).toEqual(['peer markdown-it: not graded']);
    expect(peersHold([], []).status).toBe('skip');
  });
});

describe('peer recipes', () => {
  it("commonmark's recipes load, and each records its failures with reasons", async () => {
    const peers = await loadPeers(oracleDir(TASK), REQUIREMENTS);
    expect(peers.map((p) => [p.name, p.recipe.packages.map((x) => x.name), p.recipe.expected_failures.map((f) => f.requirement)])).toMatchInlineSnapshot(`
      [
        [
          "markdown-it",
          [
            "python3-markdown-it",
            "python3-mdurl",
          ],
          [
            "R16",
          ],
        ],
        [
          "python-markdown",
          [
            "python3-markdown",
          ],
          [
            "R01",
            "R02",
            "R03",
            "R04",
            "R05",
            "R06",
            "R07",
            "R08",
            "R09",
            "R10",
            "R11",
            "R12",
            "R13",
            "R14",
            "R15",
            "R16",
            "R17",
            "R18",
            "R19",
            "R20",
            "R21",
            "R22",
            "R23",
            "R24",
            "R25",
            "R26",
            "R27",
            "R28",
            "R29",
            "R31",
            "R32",
            "R33",
          ],
        ],
      ]
    `);
  });

  it("vendors only a module's installed .py files, by the package's own file list", () => {
    const files = ['/usr/lib/python3/dist-packages/markdown_it/main.py', '/usr/lib/python3/dist-packages/markdown_it/__pycache__/main.cpython-311.pyc', '/usr/lib/python3/dist-packages/markdown_it-2.1.0.egg-info/PKG-INFO', '/usr/bin/markdown-it', '/usr/lib/python3/dist-packages/mdurl/_url.py'];
    expect(moduleSources(files, 'markdown_it')).toEqual([['/usr/lib/python3/dist-packages/markdown_it/main.py', 'markdown_it/main.py']]);
  });

  it('builds a tree that runs: markdown-it vendored behind mdlite/__main__.py', { timeout: 60_000 }, async () => {
    const [peer] = (await loadPeers(oracleDir(TASK), REQUIREMENTS)).filter((p) => p.name === 'markdown-it');
    const at = await mkdtemp(path.join(tmpdir(), 'rdh-peer-tree-'));
    roots.push(at);
    await buildPeerTree(peer!, at);
    const child = promisify(execFile)('/usr/bin/python3', ['-m', 'mdlite'], { cwd: at });
    child.child.stdin!.end('# a *b*\n');
    expect((await child).stdout).toBe('<h1>a <em>b</em></h1>\n');
  });

  it('refuses to check when a peer\'s package is missing, naming the package and the apt command (not a silent skip)', { timeout: 60_000 }, async () => {
    const oracle = await oracleCopy(async (peers) => {
      const file = path.join(peers, 'markdown-it.yaml');
      const value = parse(await readFile(file, 'utf8')) as PeerRecipe;
      value.packages[0]!.name = 'python3-no-such-peer';
      await writeFile(file, stringify(value, { lineWidth: 0 }));
    });
    const { code, stdout, stderr } = await run('task', 'check', TASK, '--oracle-dir', oracle, '--spec-dir', specDir(TASK), '--corpus-dir', corpusDir(TASK), '--only', 'peers');
    expect(stdout).toBe('');
    expect(stderr).toMatchInlineSnapshot(`
      "harness: peer markdown-it: the Debian package python3-no-such-peer is not installed; install it with: apt-get install -y python3-no-such-peer
      "
    `);
    expect(code).toBe(EXIT.environment);
  });
});

describe.skipIf(!HAS_DOCKER)('harness task check commonmark: peers (graded in Docker)', () => {
  it("names each peer's grade, holds markdown-it to its recipe, and fails on python-markdown's one moved expectation", { timeout: 1_200_000 }, async () => {
    // The real recipes, with one of python-markdown's 32 recorded failures moved from R01 to R30
    // (the one requirement it passes): two gradings show a recipe holding, a peer's grade named,
    // and a moved expectation failing the check (every other recorded failure still holds).
    const oracle = await oracleCopy(async (peers) => {
      const file = path.join(peers, 'python-markdown.yaml');
      const value = parse(await readFile(file, 'utf8')) as PeerRecipe;
      value.expected_failures = value.expected_failures.map((f) => (f.requirement === 'R01' ? { ...f, requirement: 'R30' } : f));
      await writeFile(file, stringify(value, { lineWidth: 0 }));
    });
    const { code, stdout } = await run('task', 'check', TASK, '--oracle-dir', oracle, '--spec-dir', specDir(TASK), '--corpus-dir', corpusDir(TASK), '--only', 'peers', '--json');
    const row = CheckReport.parse(JSON.parse(stdout)).properties.find((p) => p.property === 'peers-hold')!;
    const allBut = (kept: string) => REQUIREMENTS.filter((r) => r !== kept).join(', ');
    expect(row.detail).toBe(`a peer's grade moved: markdown-it 32/33 (fails R16); python-markdown 1/33 (fails ${allBut('R30')})`);
    const moved = parse(await readFile(path.join(oracle, 'peers', 'python-markdown.yaml'), 'utf8')) as PeerRecipe;
    expect(row.failures.map((f) => f.replace(/ \(R01: .*\)$/, ' (R01: …)'))).toEqual([
      'peer python-markdown: now also fails R01, which its recipe does not record (R01: …)',
      `peer python-markdown: now passes R30, which its recipe records as failed (R30: ${moved.expected_failures.find((f) => f.requirement === 'R30')!.reason})`,
    ]);
    expect(code).toBe(EXIT.propertyFailed);
  });
});
