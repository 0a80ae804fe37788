import { createHash } from 'node:crypto';
import { cacheShareByRole } from '../journal/cache-share.js';
import type { CacheShare } from '../journal/cache-share-schema.js';
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { UsageError } from '../exit-codes.js';
import { sweepCells } from '../report/journal-cells.js';
import { readRecordedRun } from '../report/read-run.js';
import type { CellMeasurement } from '../journal/cell-measurement.js';
import { positiveInt } from '../internal/cli-parsers.js';
import { loadManifest } from '../manifest/manifest-loader.js';
import { selectDepths, withMaxSessions } from '../manifest/manifest-staging.js';
import type { CliIo } from '../io.js';
import { runCallFigures } from '../plan/run-call-figures.js';
import type { RunCallFigures } from '../plan/wall-time-loads.js';
import { buildPlanReport, renderPlanJson, renderPlanText } from '../plan/plan-report.js';
import { checkProviderConfig, loadProviderConfig, locateProviderConfig } from '../providers/provider-config.js';

interface PlanFlags {
  depths?: number[];
  maxSessions?: number;
  providers?: string;
  from?: string;
  json: boolean;
}

/** Commander value parser for `--depths 1,2`: positive whole numbers, comma-separated, duplicates dropped. */
function capList(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim());
  if (!parts.every((part) => /^[1-9][0-9]*$/.test(part))) {
    throw new InvalidArgumentError(`expected caps as whole numbers of at least 1 separated by commas, e.g. 1,2; got ${JSON.stringify(value)}.`);
  }
  return [...new Set(parts.map(Number))];
}

/** The measured cells of a recorded run, and whether it recorded the manifest at `manifestFile` (same bytes). */
async function recordedCells(run: string, manifestFile: string): Promise<{ run: string; sameManifest: boolean; cells: CellMeasurement[]; calls: RunCallFigures; cache: CacheShare[] }> {
  const recorded = await readRecordedRun(run, run);
  const cells = sweepCells(recorded.events, recorded.manifest).cells.flatMap((c) => (c.measurement ? [c.measurement] : []));
  if (cells.length === 0) throw new UsageError(`${recorded.shownAs}: no cell was measured yet, so there is nothing to learn a forecast from; record some cells first (e.g. harness record --depths 1,2)`);
  const bytes = await readFile(manifestFile);
  const sameManifest = createHash('sha256').update(bytes).digest('hex') === recorded.header.pins.manifest.sha256;
  // Calls, tokens, latency and session time as measured, for the wall time of the cells left.
  return { run: recorded.shownAs, sameManifest, cells, calls: await runCallFigures(run, recorded.events), cache: cacheShareByRole(recorded.events) };
}

/** `harness plan`: the matrix and the bill of a sweep, read from its manifest. Writes nothing. */
export function planCommand(io: CliIo): Command {
  return new Command('plan')
    .description('print the matrix (cap x arm x repetition cells) and the bill of a sweep, spending nothing')
    .argument('<manifest>', 'sweep manifest (YAML), e.g. manifests/smoke.yaml')
    .option('--depths <caps>', 'only these caps, comma-separated, e.g. 1,2 (default: every cap in the manifest)', capList)
    .option('--max-sessions <n>', "lower the session ceiling for this run; never above the manifest's (default: the manifest's max_sessions)", positiveInt)
    .option('--providers <file>', 'provider configuration, for prices and the real-family check (default: $RDH_PROVIDERS, else none)')
    .option('--from <run>', 'a recorded run folder (runs/NAME): forecast the cells still to record from what its measured cells cost, and size power with its measured spread (default: none)')
    .option('--json', 'print the plan as one JSON object', false)
    .addHelpText(
      'after',
      [
        '',
        "The bill assumes every tree uses its whole cap at the manifest's",
        'projected_branching: a scenario to size the ceiling against, not a bound.',
        'With max_children set, the bill uses it instead and its figures are bounds',
        '(at most max_children^d leaves at cap d; docs/branching.md).',
        '--from runs/NAME prints a forecast learned from recorded cells beside it.',
        'Exit code 2: a bad flag, manifest or provider configuration; nothing is written.',
        '',
      ].join('\n'),
    )
    .action(async (file: string, flags: PlanFlags) => {
      let loaded = await loadManifest(file);
      if (flags.maxSessions !== undefined) loaded = withMaxSessions(loaded, flags.maxSessions);
      const selected = flags.depths === undefined ? undefined : selectDepths(loaded, flags.depths);
      const location = locateProviderConfig(flags.providers);
      const providers = location === undefined ? undefined : await loadProviderConfig(location.file, { via: location.via });
      if (providers) checkProviderConfig(loaded, providers);
      const from = flags.from === undefined ? undefined : await recordedCells(flags.from, loaded.file);
      const report = buildPlanReport(loaded, { ...(selected ? { depths: selected } : {}), ...(providers ? { providers } : {}), ...(from ? { from } : {}), cwd: process.cwd() });
      io.out(flags.json ? renderPlanJson(report) : renderPlanText(report));
    });
}
