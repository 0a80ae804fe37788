import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { loadSpecOracle } from '../../grading/grader.js';
import { loadMutants, type Mutant } from '../../grading/oracle-mutants.js';
import type { Oracle } from '../../grading/oracle-cases.js';
import type { Requirement } from '../../grading/spec-requirements.js';
import { oracleDir, specDir } from '../../paths.js';
import { corpusDir, readCorpus, type SimCorpus } from '../../sim/corpus-files.js';
import { SentenceMap } from './sentence-map.js';
import { exampleMapOf, type ExampleMapCheck } from './example-map.js';
import { loadTaskDefinition, type TaskDefinition } from '../task-definition.js';
import { loadPeers, type Peer } from './peers.js';

/**
 * The IO edge of `harness task check`: everything the battery reads of a task, loaded once
 * through each part's own loader and validated there. The folders are options so a check can
 * run on a copy (a planted fault in a temp dir); they default to the task's own.
 */

export interface TaskFolders {
  /** Default spec/<task>. */
  specDir?: string;
  /** Default oracle/<task>. */
  oracleDir?: string;
  /** Default harness/sim/corpus/<task>. */
  corpusDir?: string;
}

export interface TaskMaterial {
  task: string;
  dirs: Required<TaskFolders>;
  definition: TaskDefinition;
  requirements: Requirement[];
  /** requirements.yaml's `output: true` entries: the requirements about output format alone. */
  outputRequirements: string[];
  oracle: Oracle;
  mutants: Mutant[];
  reference: string;
  /** The reference's files that mutants patch, to pack mutants into shared trees. */
  referenceSources: Record<string, string>;
  spec: string;
  /** The sentence map, or why coverage.yaml is not one. */
  sentenceMap: { ok: true; map: SentenceMap } | { ok: false; problem: string };
  /** For a task graded by a package's examples: its recipe's check of the map from examples to requirements (null: the task has a sentence map). */
  exampleMap: ExampleMapCheck | null;
  /** Real implementations graded beside the reference, each with the requirements it is expected to fail (oracle peers/; none when absent). */
  peers: Peer[];
  /** The SIMULATED corpus, or why there is none. */
  corpus: { ok: true; corpus: SimCorpus } | { ok: false; problem: string };
}

const exists = (p: string) => stat(p).then(() => true, () => false);

export async function loadTaskMaterial(task: string, folders: TaskFolders = {}): Promise<TaskMaterial> {
  const dirs = {
    specDir: folders.specDir ?? specDir(task),
    oracleDir: folders.oracleDir ?? oracleDir(task),
    corpusDir: folders.corpusDir ?? corpusDir(task),
  };
  const definition = await loadTaskDefinition(dirs.specDir);
  const { oracle, requirements } = await loadSpecOracle(task, dirs);
  const mutants = await loadMutants(dirs.oracleDir);
  const reference = path.join(dirs.oracleDir, 'reference');
  const patched = [...new Set(mutants.flatMap((m) => m.patch.map((p) => p.file)))];
  const referenceSources = Object.fromEntries(await Promise.all(patched.map(async (f) => [f, await readFile(path.join(reference, f), 'utf8')] as const)));
  // A task graded by a package's examples has an example map in coverage.yaml, never a sentence map: it is not read as one.
  const exampleMap = await exampleMapOf(dirs.oracleDir, requirements);
  return {
    task,
    dirs,
    definition,
    requirements,
    outputRequirements: requirements.filter((r) => r.output === true).map((r) => r.id),
    oracle,
    mutants,
    reference,
    referenceSources,
    spec: await readFile(path.join(dirs.specDir, 'SPEC.md'), 'utf8'),
    sentenceMap: exampleMap ? { ok: false, problem: 'coverage.yaml maps examples, not sentences (the recipe checks it: example-map)' } : await readSentenceMap(path.join(dirs.oracleDir, 'coverage.yaml')),
    exampleMap,
    peers: await loadPeers(dirs.oracleDir, requirements.map((r) => r.id)),
    corpus: await readCorpus(definition, dirs.corpusDir).then(
      (corpus) => ({ ok: true as const, corpus }),
      (error: Error) => ({ ok: false as const, problem: `no SIMULATED corpus at ${dirs.corpusDir}: ${error.message}` }),
    ),
  };
}

async function readSentenceMap(file: string): Promise<TaskMaterial['sentenceMap']> {
  let raw: unknown;
  try {
    raw = parse(await readFile(file, 'utf8'));
  } catch (error) {
    return { ok: false, problem: `${file}: cannot read: ${(error as Error).message}` };
  }
  const parsed = SentenceMap.safeParse(raw);
  if (parsed.success) return { ok: true, map: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, problem: `${file} is not a sentence map: ${issue.path.join('.')}: ${issue.message}` };
}
