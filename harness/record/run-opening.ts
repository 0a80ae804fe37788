import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type Docker from 'dockerode';
import type { CliIo } from '../io.js';
import { assertPinsMatch, collectPins, pinPair, readHarnessVersion, type JournalPins } from '../journal/journal-header.js';
import type { JsonValue } from '../journal/json-value.js';
import { claimDefaultRunFolder, createRunFolder, inspectRunFolder, runPaths } from '../journal/run-folder.js';
import { headerOf, readSweepJournal, type SweepEvent } from '../journal/sweep-events.js';
import type { LoadedManifest } from '../manifest/manifest-loader.js';
import { allocationOf } from '../manifest/manifest.js';
import { hypothesisPin } from '../manifest/hypothesis.js';
import { REPO_ROOT, oracleDir } from '../paths.js';
import { leftoversLine, newRunId, removeLeftovers } from './run-leftovers.js';
import type { SweepModels } from './sweep-models.js';

/**
 * The run folder of a `harness record` invocation: a new one (its journal header pinned), or
 * the one `--out` names when it holds a journal (a resume, refused with nothing written on any
 * pin difference). A resume keeps the run id its header pins, removes its own run's leftovers
 * whose process is gone, and carries on the caveats earlier invocations recorded.
 */

export interface OpenRunOptions {
  loaded: LoadedManifest;
  models: SweepModels;
  flags: { out?: string; allowCodeChange?: boolean };
  io: CliIo;
  /** The sim corpus folder whose digest the header pins (the command layer's population names it; see SimulatedPopulation). */
  simCorpusDir: string;
  /** Where a default run folder goes. Default `<repo>/runs`. */
  runsDir?: string | undefined;
  /** The daemons a resume removes its leftovers from. Default none. */
  removeLeftoversOn?: readonly Docker[];
}

export interface OpenedRun {
  runDir: string;
  contents: Awaited<ReturnType<typeof readSweepJournal>>;
  history: readonly SweepEvent[];
  /** The pins this invocation would write: the header's, for a new run; compared with it, for a resume. */
  pins: JournalPins;
  /** What the run's containers, volumes and grading folders carry (a resume: the header's, or for an older journal the folder's name). */
  runId: string;
  caveats: string[];
  resume: boolean;
}

export async function openRunFolder(o: OpenRunOptions): Promise<OpenedRun> {
  const { loaded, models, flags, io } = o;
  const { manifest } = loaded;
  const manifestBytes = await readFile(loaded.file);
  const specName = path.basename(loaded.specDir);
  const freshRunId = newRunId();
  const pins = await collectPins({
    manifestBytes, manifestShownAs: loaded.shownAs, specDir: loaded.specDir, oracleDir: oracleDir(specName), simCorpusDir: o.simCorpusDir, repoRoot: REPO_ROOT,
    outputDirs: [path.join(REPO_ROOT, 'runs'), ...(flags.out ? [path.resolve(flags.out)] : []), ...(o.runsDir ? [o.runsDir] : [])],
    executor: pinPair(manifest.executor, models.config), reviewer: pinPair(manifest.reviewer, models.config),
    // The planted parameters travel with every SIMULATED run, however its population was served.
    simulated: models.simulated ? (JSON.parse(JSON.stringify(manifest.simulated)) as JsonValue) : null,
    harnessVersion: await readHarnessVersion(REPO_ROOT),
    roster: models.roster, budget: allocationOf(manifest), runId: freshRunId,
    // Pinned before any cell is recorded: what makes the report's ruling pre-registered.
    ...(manifest.hypothesis ? { hypothesis: hypothesisPin(manifest.hypothesis) as unknown as JsonValue } : {}),
    ...(manifest.max_children !== undefined ? { maxChildren: manifest.max_children } : {}),
  });

  let runDir: string;
  let contents: OpenedRun['contents'];
  let caveats: string[] = [...loaded.caveats];
  let resume = false;
  if (flags.out && (await inspectRunFolder(path.resolve(flags.out))) === 'run') {
    runDir = path.resolve(flags.out);
    contents = await readSweepJournal(runPaths(runDir).journal, { shownAs: path.join(flags.out, 'journal.jsonl') });
    const header = headerOf(contents);
    if (header) {
      caveats.push(...assertPinsMatch(header.pins, pins, { allowCodeChange: flags.allowCodeChange ?? false }));
      resume = true;
    }
  } else {
    runDir = flags.out ? path.resolve(flags.out) : await claimDefaultRunFolder(o.runsDir ?? path.join(REPO_ROOT, 'runs'), manifest.name, new Date());
    await createRunFolder(runDir, manifestBytes, flags.out ?? runDir);
    contents = await readSweepJournal(runPaths(runDir).journal);
  }
  const history = contents.events;
  const stored = headerOf(contents)?.pins;
  // Journals from before run ids were pinned label their containers with the folder's name.
  const runId = stored ? (stored.runId ?? path.basename(runDir)) : freshRunId;
  if (stored && !stored.runId) io.err(`harness: this journal pins no run id (it was recorded before run ids existed); its containers and grading folders are labelled with the folder's name, ${runId}, which another run folder of that name would share\n`);
  // A resume first removes its own run's leftovers whose process is gone (a kill inside a leaf or a grading).
  if (stored && o.removeLeftoversOn?.length) {
    const line = leftoversLine(runId, await removeLeftovers(runId, o.removeLeftoversOn));
    if (line) io.err(`${line}\n`);
  }
  // Caveats recorded by earlier invocations travel on.
  for (const e of history) if (e.type === 'run_started') caveats.push(...e.caveats);
  caveats = [...new Set(caveats)];
  return { runDir, contents, history, pins, runId, caveats, resume };
}
