import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, hypothesisPin, loadManifest } from '../../../harness/index.js';
import { bufferIo, openRunFolder, sweepModels } from '../../../harness/testing.js';
import { manifestVariant } from '../../support/manifest-variant.js';
import { SQLCSV_CORPUS_DIR } from '../../support/sim-corpus.js';

/** `harness record` pins the manifest's hypothesis in the journal header it writes, before any cell: what makes a ruling pre-registered. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdh-hypothesis-pin-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function opened(hypothesis: unknown) {
  const file = await manifestVariant(path.join(REPO_ROOT, 'manifests', 'smoke.yaml'), dir, hypothesis ? { hypothesis } : {}, `m-${Math.random().toString(36).slice(2)}.yaml`);
  const loaded = await loadManifest(file);
  const models = sweepModels({ manifest: loaded.manifest, specDir: loaded.specDir, requirements: [] });
  return openRunFolder({ loaded, models, flags: { out: path.join(dir, `run-${Math.random().toString(36).slice(2)}`) }, io: bufferIo(), simCorpusDir: SQLCSV_CORPUS_DIR, runsDir: dir });
}

describe('the hypothesis pin', () => {
  it("pins the parsed block (defaults applied) beside the manifest's bytes", async () => {
    const run = await opened({ primary: { level: 2 }, smallest_difference: 0.1, alpha: 0.05, power: 0.8 });
    expect(run.pins.hypothesis).toEqual({ primary: { level: 2 }, secondary: [], smallest_difference: 0.1, alpha: 0.05, power: 0.8 });
    expect(run.pins.hypothesis).toEqual(hypothesisPin({ primary: { level: 2 }, secondary: [], smallest_difference: 0.1, alpha: 0.05, power: 0.8 }));
  });

  it('pins nothing when the manifest declares no hypothesis, so older journals and new ones read alike', async () => {
    const run = await opened(undefined);
    expect('hypothesis' in run.pins).toBe(false);
  });
});
