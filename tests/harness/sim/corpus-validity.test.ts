import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import PQueue from 'p-queue';
import { describe, expect, it } from 'vitest';
import { gradeTree } from '../../../harness/index.js';
import {
  applyDefects,
  brokenRequirements,
  defectById,
  defectModelOf,
  pickVariant,
  streamDraws,
  testFileFor,
  treeFiles,
  type PlantedDefect,
} from '../../../harness/testing.js';
import { HAS_DOCKER, testProvider } from '../../support/docker.js';
import { SPEC_IDS } from '../../support/spec-ids.js';
import { sqlcsvCorpus } from '../../support/sim-corpus.js';

/**
 * The sim corpus against the real held-out oracle in real Docker: the clean corpus earns 42/42,
 * and planted defects fail exactly the requirements the table records, together as alone (the
 * additivity the closed-form truth assumes).
 *
 * `npm test` grades the defects in groups: two groupings of all of them, each group's defects
 * breaking disjoint requirements, and no two defects sharing a group in both. Each group must
 * fail exactly the union of its members' breaks, so a defect that breaks less than recorded
 * shows in either grouping, and one that breaks more shows in a grouping where no partner
 * already breaks that requirement. Since partners differ, only a requirement with two recorded
 * breakers (four have one collateral breaker) could hide an extra break in both. That is 14
 * gradings instead of 42. `npm run corpus:validity` (RDH_CORPUS_DEFECTS=all) grades every
 * defect alone as well. Gradings run two at a time; the per-case limit is generous so that a
 * loaded machine cannot turn a slow case into a recorded breakage.
 */
const corpus = await sqlcsvCorpus();
const GRADE = { caseTimeoutMs: 15_000 };

async function writeTree(files: Record<string, string>, root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

const failedOf = async (tree: string) => (await gradeTree({ tree, spec: 'sqlcsv', ...GRADE })).requirements.filter((r) => !r.pass).map((r) => r.id);

const ALL = process.env.RDH_CORPUS_DEFECTS === 'all';
const GROUP_SIZE = 7;

/**
 * Defects into groups of at most `size` whose recorded breaks are disjoint, first fit, never
 * putting together two defects that `apart` says already shared a group.
 */
function grouping(defects: readonly PlantedDefect[], size: number, apart: (a: PlantedDefect, b: PlantedDefect) => boolean): PlantedDefect[][] {
  const groups: PlantedDefect[][] = [];
  for (const d of defects) {
    const fits = (g: PlantedDefect[]) => g.length < size && g.every((o) => !o.breaks.some((b) => d.breaks.includes(b)) && !apart(o, d));
    const group = groups.find(fits);
    if (group) group.push(d);
    else groups.push([d]);
  }
  return groups;
}

const FIRST = grouping(corpus.defects, GROUP_SIZE, () => false);
const together = new Set(FIRST.flatMap((g) => g.flatMap((a) => g.map((b) => `${a.id} ${b.id}`))));
// The second grouping walks the table in another order (a stride), so partners differ.
const strided = corpus.defects.map((_, i) => corpus.defects[(i * 5) % corpus.defects.length]!);
const SECOND = grouping(strided, GROUP_SIZE, (a, b) => together.has(`${a.id} ${b.id}`));
const GROUPS = [...FIRST.map((g, i) => ({ name: `A${i + 1}`, g })), ...SECOND.map((g, i) => ({ name: `B${i + 1}`, g }))];

/** Defects a real tree carries at once, about. */
const SUBSET_SIZE = 8;
const SUBSET_SEEDS = [20, 2020, 202020];
const MODEL = defectModelOf(corpus.defects);

/** `size` distinct requirements drawn uniformly (seeded), each with one variant as the population picks it. */
function randomSubset(seed: number, size: number): Map<string, string> {
  const u = streamDraws(seed);
  const pool = Object.keys(MODEL).sort();
  const present = new Map<string, string>();
  for (let i = 0; i < size; i++) {
    const k = i + Math.floor(u({ node: 'corpus-validity', role: 'executor', attempt: 1, decision: 'defect', item: i }) * (pool.length - i));
    [pool[i], pool[k]] = [pool[k]!, pool[i]!];
    const r = pool[i]!;
    present.set(r, pickVariant(MODEL, r, u({ node: 'corpus-validity', role: 'executor', attempt: 1, decision: 'variant', item: r })));
  }
  return present;
}
const SUBSETS = SUBSET_SEEDS.map((seed) => ({ seed, present: randomSubset(seed, SUBSET_SIZE) }));

const root = await mkdtemp(path.join(tmpdir(), 'rdh-sim-corpus-'));
const gradings = new PQueue({ concurrency: 2 });
const failedIn = (name: string, files: Record<string, string>) => gradings.add(async () => failedOf(await writeTree(files, root, name)));
const PER_GRADING = 900_000;

describe('the defect groupings (pure)', () => {
  it('hold every defect once per grouping, with disjoint breaks, and no two defects together twice', () => {
    for (const grouped of [FIRST, SECOND]) {
      expect(grouped.flat().map((d) => d.id).sort()).toEqual(corpus.defects.map((d) => d.id).sort());
      for (const g of grouped) {
        const breaks = g.flatMap((d) => d.breaks);
        expect(new Set(breaks).size).toBe(breaks.length);
        expect(g.length).toBeLessThanOrEqual(GROUP_SIZE);
      }
    }
    for (const g of SECOND) for (const a of g) for (const b of g) if (a !== b) expect(together.has(`${a.id} ${b.id}`)).toBe(false);
    // Few enough gradings to keep npm test short, yet every defect in a group with others.
    expect(GROUPS.length).toBeLessThanOrEqual(14);
  });

  it(`draws ${SUBSET_SEEDS.length} subsets of ${SUBSET_SIZE} distinct requirements, one table variant each, reproducibly`, () => {
    for (const { seed, present } of SUBSETS) {
      expect(present.size).toBe(SUBSET_SIZE);
      for (const [r, id] of present) expect(defectById(corpus.defects, id).requirement).toBe(r);
      expect([...randomSubset(seed, SUBSET_SIZE)]).toEqual([...present]);
    }
    expect(new Set(SUBSETS.map(({ present }) => [...present.keys()].sort().join())).size).toBe(SUBSETS.length);
  });
});

// Concurrent tests, two gradings at a time: each defect is its own test, so a failure names it.
describe.skipIf(!HAS_DOCKER).concurrent('the sim corpus under the held-out oracle', () => {
  it('grades the clean corpus 42/42', async () => {
    expect(await failedIn('clean', corpus.files)).toEqual([]);
  }, PER_GRADING);

  it.each(GROUPS.map(({ name, g }) => ({ name, g, ids: g.map((d) => d.id).join(' + ') })))('group $name ($ids) fails exactly the union of its breaks', async ({ name, g }) => {
    expect(await failedIn(`group-${name}`, applyDefects(corpus.files, g))).toEqual(g.flatMap((d) => d.breaks).sort());
  }, PER_GRADING);

  it.each(SUBSETS.map(({ seed, present }) => ({ seed, present, ids: [...present.values()].sort().join(' + ') })))(
    'random subset (seed $seed) of 8 at once ($ids) fails exactly the union of its breaks',
    async ({ seed, present }) => {
      const files = treeFiles(corpus, { present, testsFor: [], undelivered: false });
      expect(await failedIn(`subset-${seed}`, files)).toEqual([...brokenRequirements(MODEL, present)].sort());
    },
    PER_GRADING,
  );

  it.runIf(ALL).each(corpus.defects)('$id alone fails exactly $breaks', async (d) => {
    expect(await failedIn(d.id, applyDefects(corpus.files, [d]))).toEqual([...d.breaks].sort());
  }, PER_GRADING);

  it(
    "passes its own tests in the sandbox image, and each defect fails only its requirement's test file",
    async () => {
      const workspace = await mkdtemp(path.join(tmpdir(), 'rdh-sim-selftest-'));
      const trees = { clean: corpus.files, ...Object.fromEntries(corpus.defects.map((d) => [d.id, applyDefects(corpus.files, [d])])) };
      for (const [name, files] of Object.entries(trees)) await writeTree(files, workspace, name);
      const sandbox = await testProvider().create({ workspaceDir: workspace, runId: 'sim-corpus-selftest', purpose: 'sim corpus tests' });
      try {
        const run = await sandbox.exec(
          `for t in */; do t=\${t%/}; (cd "$t" && python3 -m pytest -q -p no:cacheprovider tests > "../$t.log" 2>&1; echo "$t $?"); done`,
          { timeoutMs: 600_000, env: { PYTHONDONTWRITEBYTECODE: '1' } },
        );
        expect(run.exitCode).toBe(0);
        const wrong: string[] = [];
        for (const [name] of Object.entries(trees)) {
          const log = await sandbox.readFile(`${name}.log`);
          const failing = [...new Set([...log.matchAll(/(?:FAILED|ERROR) (tests\/test_r\d\d_\w+\.py)/g)].map((m) => m[1]!))].sort();
          const defect = corpus.defects.find((d) => d.id === name);
          const expected = defect ? [testFileFor(corpus.files, defect.requirement)!] : [];
          if (failing.join() !== expected.join() || (!defect && !/\d+ passed/.test(log))) wrong.push(`${name}: expected failing [${expected.join(',')}] got [${failing.join(',')}]`);
        }
        expect(wrong).toEqual([]);
      } finally {
        await sandbox.dispose();
      }
    },
    900_000,
  );
});
