import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { COMMAND_NAMES, COMMANDS, commandsFor, type CommandName } from './command-table.js';
import { EXIT, EXIT_DESCRIPTIONS } from './exit-status.js';
import { dropWritesToClosedPipes, processIo, type CliIo } from './io.js';
import { REPO_ROOT } from './paths.js';

/** The harness's version, from package.json (the one place it is written). */
export const VERSION: string = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * Builds the command tree with the named subcommands (default: all). Each call is independent, so
 * tests can run many in one process.
 */
export async function buildProgram(io: CliIo, setExit: (code: number) => void = () => undefined, names: readonly CommandName[] = COMMAND_NAMES): Promise<Command> {
  const program = new Command('harness')
    .description('Measure whether work survives as a recursive agent splits a goal deeper, with and without an independent verifier at every merge.')
    .version(VERSION, '-V, --version', 'print the version and exit')
    .addHelpText(
      'after',
      `\nExit codes:\n${EXIT_DESCRIPTIONS.map(([code, text]) => `  ${code}  ${text}`).join('\n')}\n\nDocker: set DOCKER_HOST to use a remote daemon.\n`,
    );
  for (const command of await Promise.all(names.map((name) => COMMANDS[name](io, setExit)))) program.addCommand(command);

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
  try {
    const program = await buildProgram(io, (code) => (exit = code), commandsFor(argv));
    await program.parseAsync(argv, { from: 'user' });
    return exit;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    // Loaded here, not at start: mapping an error to its code needs every error class, so the engine.
    const { exitCodeFor } = await import('./exit-codes.js');
    const code = exitCodeFor(error);
    const message = error instanceof Error ? error.message : String(error);
    io.err(`harness: ${message}\n`);
    if (code === EXIT.internal && error instanceof Error && error.stack) io.err(`${error.stack}\n`);
    return code;
  }
}

/** The process's CLI (harness/bin.js, or this file run directly): quiet on a closed pipe, the exit code set. */
export async function main(argv: string[]): Promise<void> {
  dropWritesToClosedPipes();
  process.exitCode = await runCli(argv);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) void main(process.argv.slice(2));
