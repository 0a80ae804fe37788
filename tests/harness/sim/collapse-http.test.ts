import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ARMS, EXIT, SimParams, parseCellId, plantedText, runRecord, type RecordResult, type SimServer } from '../../../harness/index.js';
import { defectModelOf, findMarkers, samplePair } from '../../../harness/testing.js';
import { SPEC_IDS } from '../../support/spec-ids.js';
import { sqlcsvDefectTable } from '../../support/sim-corpus.js';
import { manifestVariant, providersFile, startServer } from '../record/http-fixture.js';
import { bufferIo, fakeGrade, simSeams } from '../record/record-fixture.js';

/**
 * The collapse mode over HTTP: `harness record` through `harness sim serve` on a real port,
 * with every cell collapsing (rate 1), builds in each arm's graded root tree exactly the
 * planted defects the pure sampler predicts for the same seed, and the server's planted
 * parameters name the mode.
 */
let tmp: string;
let server: SimServer;
let result: RecordResult;
let manifest: string;
const planted = new Map<string, string[]>();

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-collapse-http-'));
  manifest = await manifestVariant(tmp, 'collapse', [
    [/(  non_delivery_rate: [^\n]*\n)/, '$1  collapse: { rate: 1, severity: 0.4 } # SIMULATED: every cell collapses\n'],
    // Only the root's grade is read here: the leaves' and inner merges' gradings would only cost time.
    ['merge_attempts: 1', 'grade_leaves: false\ngrade_merges: false\nmerge_attempts: 1'],
  ]);
  server = await startServer(undefined, manifest);
  const providers = await providersFile(path.join(tmp, 'p'), server.url);
  const seams = simSeams();
  result = await runRecord(manifest, { depths: [1], out: path.join(tmp, 'run'), providers }, bufferIo(), {
    ...seams,
    grade: async (tree, cell) => {
      // Leaves' own trees are graded too (grade_leaves); the root's merged tree is the cell's grade.
      if (!/[/\\]merge-(gated|ungated)[/\\]root[/\\]ws$/.test(tree)) return fakeGrade(tree);
      const files: Record<string, string> = {};
      for (const f of await readdir(path.join(tree, 'sqlcsv'))) if (f.endsWith('.py')) files[`sqlcsv/${f}`] = await readFile(path.join(tree, 'sqlcsv', f), 'utf8');
      planted.set(cell, [...new Set(findMarkers(files).map((m) => m.requirement))].sort());
      return fakeGrade(tree);
    },
  });
}, 1_200_000);

afterAll(async () => {
  await server?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the SIMULATED collapse mode over HTTP (harness sim serve)', () => {
  it('builds the collapsed trees the pure model predicts, in both arms', async () => {
    expect(result.exit).toBe(EXIT.ok);
    const block = (parseYaml(await readFile(manifest, 'utf8')) as { simulated: unknown; merge_attempts: number }).simulated;
    const params = SimParams.parse(block);
    expect(plantedText(params)).toMatch(/collapse \{rate 1, severity 0\.4\}$/);
    const defects = defectModelOf(await sqlcsvDefectTable());
    expect([...planted.keys()].sort()).toEqual(['cap1-rep1-gated', 'cap1-rep1-ungated']);
    for (const [cell, found] of planted) {
      const key = parseCellId(cell)!;
      const predicted = samplePair(params, { cap: key.cap, repetition: key.repetition, mergeAttempts: 1, defects, requirements: SPEC_IDS }).arms[key.arm];
      expect([cell, found]).toEqual([cell, [...predicted.present.keys()].sort()]);
    }
    // Collapse planted far more than the seams could: one seam per child at most.
    for (const arm of ARMS) expect(planted.get(`cap1-rep1-${arm}`)!.length).toBeGreaterThan(6);
  });
});
