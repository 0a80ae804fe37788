import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT, digestFolder, type CellMeasurement, type JournalPins, type SweepEvent } from '../../../harness/index.js';
import { simJournal, simManifest, simPins, type SimDesign } from './sim-sweep.js';
import { SQLCSV_CORPUS_DIR } from '../../support/sim-corpus.js';

/**
 * A run folder as `harness record` leaves it (journal.jsonl and the manifest's exact bytes,
 * pinned by the journal's header), for a synthetic SIMULATED sweep.
 */

/** The manifest file of a design, as YAML, and the pins that name its bytes and the current sim corpus. */
export async function runFiles(design: SimDesign, manifestOver: Record<string, unknown> = {}, manifestYaml?: string): Promise<{ yaml: string; pins: JournalPins }> {
  const yaml = manifestYaml ?? stringify(simManifest(design, manifestOver));
  const pins = simPins(design);
  return {
    yaml,
    pins: {
      ...pins,
      manifest: { path: 'manifests/sim.yaml', sha256: createHash('sha256').update(yaml).digest('hex'), bytes: Buffer.byteLength(yaml) },
      simCorpus: { path: 'harness/sim/corpus/sqlcsv', content: await digestFolder(SQLCSV_CORPUS_DIR) },
      // The real spec's digest: the truth sums over the pinned spec's requirements, read only while it is the pinned one.
      spec: { path: 'spec/sqlcsv', content: await digestFolder(path.join(REPO_ROOT, 'spec', 'sqlcsv')) },
    },
  };
}

export async function writeRun(dir: string, yaml: string, events: readonly SweepEvent[]): Promise<string> {
  await mkdir(path.join(dir, 'cells'), { recursive: true });
  await writeFile(path.join(dir, 'manifest.yaml'), yaml);
  await writeFile(path.join(dir, 'journal.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  return dir;
}

/**
 * A run folder holding a synthetic simulated sweep of `cells`, under a fresh temporary folder.
 * With `pathLength`, a padding folder between the two makes the run folder's path exactly that
 * long, so a snapshot of text wrapped around the path breaks its lines in the same places
 * whatever the temporary folder is (npm test's own, or /tmp).
 */
export async function simRun(
  design: SimDesign,
  cells: readonly CellMeasurement[],
  options: Parameters<typeof simJournal>[2] & { name?: string; manifestOver?: Record<string, unknown>; manifestYaml?: string; pathLength?: number } = {},
): Promise<{ dir: string; events: SweepEvent[] }> {
  const { yaml, pins } = await runFiles(design, options.manifestOver, options.manifestYaml);
  const events = simJournal(design, cells, { ...options, pins: options.pins ?? pins });
  const root = await mkdtemp(path.join(tmpdir(), 'rdh-report-'));
  const name = options.name ?? 'sim-sweep-20260102T030000Z';
  const dir = await writeRun(path.join(root, padding(root, name, options.pathLength), name), yaml, events);
  return { dir, events };
}

function padding(root: string, name: string, pathLength: number | undefined): string {
  if (pathLength === undefined) return '';
  const width = pathLength - path.join(root, 'x', name).length + 1;
  if (width < 1) throw new Error(`simRun: the temporary folder ${root} is too long for a run path of ${pathLength} characters; raise pathLength`);
  return 'p'.repeat(width);
}
