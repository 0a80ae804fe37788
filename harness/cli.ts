import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { gradeCommand } from './commands/grade.js';
import { solveCommand } from './commands/solve.js';
import { planCommand } from './commands/plan.js';
import { recordCommand } from './commands/record.js';
import { replayCommand } from './commands/replay.js';
import { reportCommand } from './commands/report.js';
import { sandboxCommand } from './commands/sandbox.js';
import { simCommand } from './commands/sim.js';
import { modelsCommand } from './commands/models.js';
import { taskCommand } from './commands/task.js';
import { EXIT, EXIT_DESCRIPTIONS, exitCodeFor } from './exit-codes.js';
import { dropWritesToClosedPipes, processIo, type CliIo } from './io.js';
import { REPO_ROOT } from './paths.js';

/** The harness's version, from package.json (the one place it is written). */
export const VERSION: string = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Builds the command tree. Each call is independent, so tests can run many in one process. */
export function buildProgram(io: CliIo, setExit: (code: number) => void = () => undefined): Command {
  const program = new Command('harness')
    .description('Measure whether work survives as a recursive agent splits a goal deeper, with and without an independent verifier at every merge.')
    .version(VERSION, '-V, --version', 'print the version and exit')
    .addHelpText(
      'after',
      `\nExit codes:\n${EXIT_DESCRIPTIONS.map(([code, text]) => `  ${code}  ${text}`).join('\n')}\n\nDocker: set DOCKER_HOST to use a remote daemon.\n`,
    );
  program.addCommand(sandboxCommand(io));
  program.addCommand(planCommand(io));
  program.addCommand(recordCommand(io, setExit));
  program.addCommand(replayCommand(io, setExit));
  program.addCommand(reportCommand(io));
  program.addCommand(gradeCommand(io));
  program.addCommand(solveCommand(io));
  program.addCommand(simCommand(io));
  program.addCommand(modelsCommand(io, setExit));
  program.addCommand(taskCommand(io, setExit));

  // Commander's own errors (unknown flag, missing argument) become one-line usage errors.
  const configure = (cmd: Command): void => {
    cmd
      .exitOverride()
      .showSuggestionAfterError(true)
      .configureOutput({
        writeOut: (s) => io.out(s),
        writeErr: (s) => io.err(s),
        outputError: (s, write) => write(`${s.replace(/\n(?=.)/g, ' ').trim()}\n`),
      });
    cmd.commands.forEach(configure);
  };
  configure(program);
  return program;
}

/** Runs the CLI on `argv` (without node and script) and returns the exit code. Never throws. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  let exit: number = EXIT.ok;
  const program = buildProgram(io, (code) => (exit = code));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exit;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    const code = exitCodeFor(error);
    const message = error instanceof Error ? error.message : String(error);
    io.err(`harness: ${message}\n`);
    if (code === EXIT.internal && error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    return code;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  dropWritesToClosedPipes();
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
