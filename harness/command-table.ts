import type { Command } from 'commander';
import type { CliIo } from './io.js';

/** What builds one subcommand: its module is imported only when the command line needs it. */
type CommandLoader = (io: CliIo, setExit: (code: number) => void) => Promise<Command>;

/**
 * The harness's subcommands, in the order `--help` lists them. Each is imported on demand so a
 * command line loads only its own command's code (`harness plan` never loads Docker's client,
 * `harness --version` loads none), which is most of what the CLI's start costs.
 */
export const COMMANDS = {
  sandbox: async (io) => (await import('./commands/sandbox.js')).sandboxCommand(io),
  plan: async (io) => (await import('./commands/plan.js')).planCommand(io),
  record: async (io, setExit) => (await import('./commands/record.js')).recordCommand(io, setExit),
  replay: async (io, setExit) => (await import('./commands/replay.js')).replayCommand(io, setExit),
  report: async (io) => (await import('./commands/report.js')).reportCommand(io),
  grade: async (io) => (await import('./commands/grade.js')).gradeCommand(io),
  solve: async (io) => (await import('./commands/solve.js')).solveCommand(io),
  sim: async (io) => (await import('./commands/sim.js')).simCommand(io),
  models: async (io, setExit) => (await import('./commands/models.js')).modelsCommand(io, setExit),
  task: async (io, setExit) => (await import('./commands/task.js')).taskCommand(io, setExit),
} satisfies Record<string, CommandLoader>;
export type CommandName = keyof typeof COMMANDS;
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

/**
 * The subcommands a command line needs: the one it names; none for a bare `--version`; every one
 * otherwise (the root's help lists them all, and an unknown name is answered with a suggestion).
 */
export function commandsFor(argv: readonly string[]): CommandName[] {
  const named = argv.find((a) => !a.startsWith('-'));
  if (named !== undefined) return (COMMAND_NAMES as string[]).includes(named) ? [named as CommandName] : COMMAND_NAMES;
  return argv.length > 0 && argv.every((a) => a === '--version' || a === '-V') ? [] : COMMAND_NAMES;
}
