import { Command } from 'commander';
import { EXIT, UsageError } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { PARTS, type Part } from '../task/check/grading-plan.js';
import { renderCheck } from '../task/check/check-table.js';
import { runTaskCheck } from '../task/check/check-run.js';

interface CheckFlags {
  specDir?: string;
  oracleDir?: string;
  corpusDir?: string;
  json: boolean;
  exhaustive: boolean;
  only?: Part[];
  slice?: number;
  quick: boolean;
  mutants?: string[];
  defects?: string[];
}

const TASK_NAME = /^[a-z][a-z0-9-]*$/;

function parts(value: string): Part[] {
  const list = value.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (bad.length || !list.length) throw new UsageError(`--only: ${bad.join(', ') || '(nothing)'} is not a part; choose from ${PARTS.join(', ')}`);
  return list as Part[];
}

const ids = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

function sliceArg(value: string): number {
  if (!/^\d{1,6}$/.test(value)) throw new UsageError(`--slice: "${value}" is not a slice number (0, 1, 2, ...)`);
  return Number(value);
}

export function taskCommand(io: CliIo, setExit: (code: number) => void): Command {
  const task = new Command('task').description("a task's own tooling: check that its oracle, mutants, coverage and SIMULATED corpus are valid");
  task
    .command('check')
    .description('the validity battery: grades the reference, the empty tree, constant programs, the mutants and the SIMULATED corpus with the real grader (Docker) and checks every property; exit 0 only when all hold')
    .argument('<task>', 'the task: spec/<task>, oracle/<task>, harness/sim/corpus/<task>')
    .option('--spec-dir <dir>', 'the spec folder (default spec/<task>)')
    .option('--oracle-dir <dir>', 'the oracle folder (default oracle/<task>)')
    .option('--corpus-dir <dir>', 'the SIMULATED corpus folder (default harness/sim/corpus/<task>)')
    .option('--json', 'print the report as JSON (for CI)', false)
    .option('--exhaustive', 'grade every mutant alone both ways and every planted defect alone (long)', false)
    .option('--only <parts>', `run only these parts, comma-separated: ${PARTS.join(', ')}`, parts)
    .option('--quick', 'grade fewer trees of each kind (one constant program, two mutant groups, one mutant alone, two defect groups), turning with the UTC day, and the baselines and the exec twin on fewer cases: what npm test runs', false)
    .option('--slice <k>', 'which slice of the packed mutant groups to grade (default: the UTC day\'s)', sliceArg)
    .option('--mutants <ids>', 'grade only these mutants, each alone (comma-separated)', ids)
    .option('--defects <ids>', 'grade only these planted defects, each alone (comma-separated)', ids)
    .action(async (name: string, opts: CheckFlags) => {
      if (!TASK_NAME.test(name)) throw new UsageError(`"${name}" is not a task name (lower case letters, digits and dashes: a folder under spec/)`);
      const report = await runTaskCheck({
        task: name,
        specDir: opts.specDir,
        oracleDir: opts.oracleDir,
        corpusDir: opts.corpusDir,
        parts: opts.only,
        exhaustive: { mutants: opts.exhaustive, corpus: opts.exhaustive },
        slice: opts.slice,
        quick: opts.quick,
        mutants: opts.mutants,
        defects: opts.defects,
        progress: (line) => io.err(`${line}\n`),
      });
      io.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderCheck(report));
      if (!report.pass) setExit(EXIT.propertyFailed);
    });
  return task;
}
