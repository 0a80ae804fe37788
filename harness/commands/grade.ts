import { Command } from 'commander';
import { gradeTree } from '../grading/grader.js';
import { renderGrade } from '../grading/grade-report.js';
import type { CliIo } from '../io.js';
import { positiveInt } from '../internal/cli-parsers.js';

export function gradeCommand(io: CliIo): Command {
  return new Command('grade')
    .description('grade a tree with the held-out oracle inside a fresh container; prints per-requirement results')
    .argument('<tree>', 'root of the tree to grade (holds the deliverable, e.g. sqlcsv/__main__.py)')
    .option('--spec <name>', 'task specification (spec/<name>, oracle/<name>)', 'sqlcsv')
    .option('--case-timeout <ms>', 'per-case time limit in milliseconds', positiveInt, 3000)
    .option('--json', 'print the grade as JSON', false)
    .action(async (tree: string, opts: { spec: string; caseTimeout: number; json: boolean }) => {
      const result = await gradeTree({ tree, spec: opts.spec, caseTimeoutMs: opts.caseTimeout });
      io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderGrade(result));
    });
}
