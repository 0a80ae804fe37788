import { Command } from 'commander';
import type { CliIo } from '../io.js';
import { writeReport } from '../report/write-report.js';
import { rulingLines } from '../report/ruling.js';
import { lookLines, looksLines } from '../report/look-ruling.js';
import { takeLookAt } from '../report/take-look.js';

/** `harness report runs/NAME [--look]`: (re)builds the run's report/ folder from its journal; `--look` first spends a look. */
export function reportCommand(io: CliIo): Command {
  return new Command('report')
    .description('(re)build runs/NAME/report/ from the run\'s journal: report.json, report.md and charts/NAME.svg beside each vega-lite spec')
    .argument('<run>', 'a run folder written by harness record, e.g. runs/smoke-20260102T030405Z')
    .option('--look', 'take the next look at the pre-registered hypothesis first: rule on it (at the spent boundary, under a sequential: design) and append the look to the journal; without it nothing is appended', false)
    .addHelpText(
      'after',
      [
        '',
        'Reads only: journal.jsonl and manifest.yaml (checked against the journal). The report/',
        'folder is replaced whole. A sweep where nothing was measured gets no report.',
        '--look is the one thing that writes to the journal (one look_taken event); plain report',
        'and make_site.sh never take a look.',
        'Exit code 2: not a run folder, a journal or manifest that cannot be read, nothing measured;',
        'with --look also: no pre-registered hypothesis, a look past sequential.looks, a look after',
        'a STOP, or no pair added since the last look (nothing is written).',
        '',
      ].join('\n'),
    )
    .action(async (run: string, flags: { look: boolean }) => {
      const look = flags.look ? await takeLookAt(run, run) : undefined;
      const written = await writeReport(run, { shownAs: run });
      // A chart the renderer warned about is still written, and the warning is not hidden.
      for (const warning of written.warnings) io.err(`harness report: chart warning: ${warning}\n`);
      io.out(written.summary);
      // The pre-registered ruling (or NOT PRE-REGISTERED) is said on the terminal, not only in report.md.
      const section = written.report.ruling;
      if (section) io.out(`${[...rulingLines(section), ...looksLines(section)].join('\n')}\n`);
      if (look) io.out(`${['Look taken now, and journalled:', ...lookLines(look)].join('\n')}\n`);
    });
}
