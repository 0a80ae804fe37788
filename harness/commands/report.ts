import { Command } from 'commander';
import type { CliIo } from '../io.js';
import { writeReport } from '../report/write-report.js';
import { rulingLines } from '../report/ruling.js';

/** `harness report runs/NAME`: (re)builds the run's report/ folder from its journal. */
export function reportCommand(io: CliIo): Command {
  return new Command('report')
    .description('(re)build runs/NAME/report/ from the run\'s journal: report.json, report.md and charts/NAME.svg beside each vega-lite spec')
    .argument('<run>', 'a run folder written by harness record, e.g. runs/smoke-20260102T030405Z')
    .addHelpText(
      'after',
      [
        '',
        'Reads only: journal.jsonl and manifest.yaml (checked against the journal). The report/',
        'folder is replaced whole. A sweep where nothing was measured gets no report.',
        'Exit code 2: not a run folder, a journal or manifest that cannot be read, nothing measured.',
        '',
      ].join('\n'),
    )
    .action(async (run: string) => {
      const written = await writeReport(run, { shownAs: run });
      // A chart the renderer warned about is still written, and the warning is not hidden.
      for (const warning of written.warnings) io.err(`harness report: chart warning: ${warning}\n`);
      io.out(written.summary);
      // The pre-registered ruling (or NOT PRE-REGISTERED) is said on the terminal, not only in report.md.
      if (written.report.ruling) io.out(`${rulingLines(written.report.ruling).join('\n')}\n`);
    });
}
