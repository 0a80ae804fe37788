import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gradeTree, loadSpecOracle, loadTaskDefinition, runnerDir, specDir } from '../../harness/index.js';
import { RUNNER_FILES, applyDefects, readCorpus } from '../../harness/testing.js';

/**
 * The cases of the held-out oracle that decide a SIMULATED tree's grade, as ids the grader takes
 * (`gradeTree`'s `caseIds`, the record and replay seams' `base(tree, { caseIds })`). Every tree the
 * SIMULATED population builds is its task's corpus with defects of the corpus's table planted
 * (or files missing), so which requirements it passes is decided by a few cases: for each defect
 * and each requirement it breaks, the first case of that requirement it fails alone, and for a
 * requirement no defect reaches, its first case. A grading of sqlcsv's 373 cases takes about
 * 9.6 s on the idle 2-core machine; a grading of its witnesses, under 2 s.
 *
 * The Docker tests that record a SIMULATED sweep to check the harness's plumbing (HTTP against
 * in-process, staging, resume, replay, exact recovery of the planted truth) grade with them: they
 * still run the real grader in real Docker, and they still assert exact requirement verdicts, so
 * a witness list that missed a defect fails them. What the whole oracle says of each defect is
 * the corpus's own property (tests/harness/sim/corpus-validity.test.ts, `npm run corpus:validity`),
 * and the witnesses are read from that: `npm run witness:cases` grades the clean corpus and every
 * defect alone with the whole oracle and writes tests/support/fixtures/witness-cases.json. The
 * file is pinned to a digest of the cases, the judge, the runner and the corpus; when any of them
 * changes the helper refuses, naming that command.
 */

export const WITNESS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'witness-cases.json');

interface TaskWitnesses {
  /** Digest of everything a witness's verdict depends on (materialDigest). */
  digest: string;
  /** Defect id -> requirement it breaks -> the first case of that requirement it fails alone. */
  defects: Record<string, Record<string, string>>;
}
type WitnessFile = Record<string, TaskWitnesses>;

export class StaleWitnessesError extends Error {}

async function filesDigest(hash: ReturnType<typeof createHash>, dir: string, names: readonly string[]): Promise<void> {
  for (const name of names) hash.update(`${name}\0`).update(await readFile(path.join(dir, name))).update('\0');
}

/** Everything a witness's verdict depends on: the oracle's cases and judge, the runner, the corpus and its defect table. */
export async function materialDigest(task: string): Promise<string> {
  const hash = createHash('sha256');
  const { oracle } = await loadSpecOracle(task);
  hash.update(JSON.stringify(oracle.cases));
  await filesDigest(hash, oracle.dir, oracle.judgeFiles);
  await filesDigest(hash, runnerDir(), RUNNER_FILES);
  const corpus = await readCorpus(await loadTaskDefinition(specDir(task)));
  hash.update(JSON.stringify(corpus.files)).update(JSON.stringify(corpus.defects));
  return hash.digest('hex');
}

/** The witness case ids of a task, per requirement, in the oracle's order; refuses a list older than the material it was read from. */
export async function witnessCaseIds(task: string, from = WITNESS_FILE): Promise<string[]> {
  const file = JSON.parse(await readFile(from, 'utf8')) as WitnessFile;
  const mine = file[task];
  const fix = 'run `npm run witness:cases` (it grades every defect alone, about 15 minutes) and commit tests/support/fixtures/witness-cases.json';
  if (!mine) throw new StaleWitnessesError(`${from}: no witnesses for task ${task}; ${fix}`);
  if (mine.digest !== (await materialDigest(task))) throw new StaleWitnessesError(`${from}: task ${task}'s oracle, runner or corpus changed since its witnesses were read; ${fix}`);
  const { oracle } = await loadSpecOracle(task);
  const picked = new Set(Object.values(mine.defects).flatMap((byRequirement) => Object.values(byRequirement)));
  for (const ids of Object.values(oracle.requirementMap)) if (!ids.some((id) => picked.has(id))) picked.add(ids[0]!);
  return oracle.cases.map((c) => c.id).filter((id) => picked.has(id));
}

/** Grades the clean corpus and each defect alone with the whole oracle, and reads the witnesses off the failures. */
async function readWitnesses(task: string, log: (line: string) => void): Promise<TaskWitnesses> {
  const corpus = await readCorpus(await loadTaskDefinition(specDir(task)));
  const work = await mkdtemp(path.join(tmpdir(), `rdh-witness-read-${task}-`));
  const grade = async (name: string, files: Record<string, string>) => {
    const dir = path.join(work, name);
    for (const [rel, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
      await writeFile(path.join(dir, rel), text);
    }
    return gradeTree({ tree: dir, spec: task, specDir: specDir(task), runId: 'witness-cases', caseTimeoutMs: 20_000 });
  };
  try {
    const clean = await grade('clean', corpus.files);
    if (clean.satisfied !== clean.total) throw new Error(`${task}: the clean corpus passes ${clean.satisfied} of ${clean.total} requirements; the witnesses need a corpus that passes all`);
    const defects: TaskWitnesses['defects'] = {};
    for (const [i, d] of corpus.defects.entries()) {
      const result = await grade(d.id, applyDefects(corpus.files, [d]));
      const failing = result.requirements.filter((r) => !r.pass);
      const declared = [...d.breaks].sort().join(',');
      if (failing.map((r) => r.id).sort().join(',') !== declared) throw new Error(`${task}: ${d.id} fails [${failing.map((r) => r.id).join(',')}] under the whole oracle, but the defect table says [${declared}]`);
      defects[d.id] = Object.fromEntries(failing.map((r) => [r.id, r.failures[0]!.case]));
      log(`${task} ${i + 1}/${corpus.defects.length} ${d.id}: ${failing.map((r) => `${r.id} ${r.failures[0]!.case}`).join(', ')}`);
    }
    return { digest: await materialDigest(task), defects };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const tasks = process.argv.slice(2).length ? process.argv.slice(2) : ['sqlcsv', 'commonmark'];
  const file = (await readFile(WITNESS_FILE, 'utf8').then((t) => JSON.parse(t) as WitnessFile).catch(() => ({}))) as WitnessFile;
  for (const task of tasks) file[task] = await readWitnesses(task, (line) => console.log(line));
  await writeFile(WITNESS_FILE, `${JSON.stringify(file, null, 1)}\n`);
  for (const task of tasks) console.log(`${task}: ${(await witnessCaseIds(task)).length} witness cases of ${(await loadSpecOracle(task)).oracle.cases.length}`);
}
