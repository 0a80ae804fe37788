import path from 'node:path';
import { Command, Option } from 'commander';
import { gradeTree } from '../grading/grader.js';
import { renderGrade } from '../grading/grade-report.js';
import type { CliIo } from '../io.js';
import { UsageError } from '../exit-codes.js';
import { positiveInt } from '../internal/cli-parsers.js';
import { loadManifest } from '../manifest/manifest-loader.js';
import { specTasks } from '../manifest/spec-folder.js';
import { REPO_ROOT, specDir } from '../paths.js';

interface GradeFlags {
  spec?: string;
  manifest?: string;
  caseTimeout: number;
  json: boolean;
  reveal: boolean;
  mode: 'fork' | 'exec';
}

/** The task a grade runs against: `--spec`, or the spec folder of `--manifest`; neither is a usage error naming the tasks there are. */
async function taskOf(opts: Pick<GradeFlags, 'spec' | 'manifest'>): Promise<{ spec: string; specDir: string }> {
  if (opts.spec !== undefined && opts.manifest !== undefined) throw new UsageError('--spec and --manifest both name the task; give one of them.');
  if (opts.manifest !== undefined) {
    const loaded = await loadManifest(opts.manifest);
    return { spec: path.basename(loaded.specDir), specDir: loaded.specDir };
  }
  if (opts.spec !== undefined) return { spec: opts.spec, specDir: specDir(opts.spec) };
  const tasks = await specTasks(path.join(REPO_ROOT, 'spec'));
  throw new UsageError(`--spec: name the task to grade against (${tasks.length ? `tasks under spec/: ${tasks.join(', ')}` : 'no task under spec/ holds a task.yaml'}), or --manifest FILE to take its spec.`);
}

export function gradeCommand(io: CliIo): Command {
  return new Command('grade')
    .description('grade a tree with the held-out oracle inside a fresh container; prints per-requirement results')
    .argument('<tree>', "root of the tree to grade (holds the deliverable: the entry points of the task's task.yaml)")
    .option('--spec <name>', 'the task (spec/<name>, oracle/<name>); required unless --manifest gives it')
    .option('--manifest <file>', "take the task from a sweep manifest's spec folder")
    .option('--case-timeout <ms>', 'per-case time limit in milliseconds', positiveInt, 3000)
    .option('--json', 'print the grade as JSON (what sweeps save as grade.json)', false)
    .option('--reveal', 'also print each failing case in full (expected output included) to the terminal; never with --json, never into a file', false)
    .addOption(new Option('--mode <how>', 'start each case by forking a pre-started interpreter, or exec a fresh python3').choices(['fork', 'exec']).default('fork'))
    .action(async (tree: string, opts: GradeFlags) => {
      if (opts.reveal && opts.json) throw new UsageError('--reveal prints held-out expectations and cannot be combined with --json; drop one of them.');
      if (opts.reveal && !io.isTty) throw new UsageError('--reveal prints held-out expectations, so only to a terminal, and standard output is not one; run it in a terminal without redirecting.');
      const task = await taskOf(opts);
      let revealed = '';
      const result = await gradeTree({
        tree,
        ...task,
        caseTimeoutMs: opts.caseTimeout,
        mode: opts.mode,
        reveal: opts.reveal ? (text) => void (revealed = text) : undefined,
      });
      io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : renderGrade(result));
      if (revealed) io.out(`\nfailing cases in full (held-out; for this terminal only):\n\n${revealed}`);
    });
}
