import { Command, Option } from 'commander';
import { gradeTree } from '../grading/grader.js';
import { renderGrade } from '../grading/grade-report.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../exit-codes.js';
import { positiveInt } from '../internal/cli-parsers.js';

interface GradeFlags {
  spec: string;
  caseTimeout: number;
  json: boolean;
  reveal: boolean;
  mode: 'fork' | 'exec';
}

export function gradeCommand(io: CliIo): Command {
  return new Command('grade')
    .description('grade a tree with the held-out oracle inside a fresh container; prints per-requirement results')
    .argument('<tree>', 'root of the tree to grade (holds the deliverable, e.g. sqlcsv/__main__.py)')
    .option('--spec <name>', 'task specification (spec/<name>, oracle/<name>)', 'sqlcsv')
    .option('--case-timeout <ms>', 'per-case time limit in milliseconds', positiveInt, 3000)
    .option('--json', 'print the grade as JSON (what sweeps save as grade.json)', false)
    .option('--reveal', 'also print each failing case in full (expected output included) to the terminal; never with --json, never into a file', false)
    .addOption(new Option('--mode <how>', 'start each case by forking a pre-started interpreter, or exec a fresh python3').choices(['fork', 'exec']).default('fork'))
    .action(async (tree: string, opts: GradeFlags) => {
      if (opts.reveal && opts.json) throw new UsageError('--reveal prints held-out expectations and cannot be combined with --json; drop one of them.');
      if (opts.reveal && !io.isTty) throw new UsageError('--reveal prints held-out expectations, so only to a terminal, and standard output is not one; run it in a terminal without redirecting.');
      let revealed = '';
      const result = await gradeTree({
        tree,
        spec: opts.spec,
        caseTimeoutMs: opts.caseTimeout,
        mode: opts.mode,
        reveal: opts.reveal ? (text) => void (revealed = text) : undefined,
      });
      io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderGrade(result));
      if (revealed) io.out(`\nfailing cases in full (held-out; for this terminal only):\n\n${revealed}`);
    });
}
