import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import {
  DockerSandboxProvider,
  JsonlDirectory,
  JsonlFile,
  MemoryEventSink,
  SecretCatalogue,
  TranscribingModelClient,
  solve,
  systemClock,
  type EngineEvent,
} from '../../engine/index.js';
import { clientsFromConfig, configuredKeys, rosterFromConfig } from '../providers/engine-roster.js';
import { UsageError } from '../exit-codes.js';
import { positiveInt } from '../internal/cli-parsers.js';
import type { CliIo } from '../io.js';
import { REPO_ROOT } from '../paths.js';
import { loadProviderConfig, locateProviderConfig } from '../providers/provider-config.js';
import { sandboxImageTag } from '../sandbox/sandbox-image.js';
import { renderSolve } from './solve-report.js';

interface SolveFlags {
  maxDepth: number;
  budget: number;
  providers?: string;
  out?: string;
  concurrency: number;
  json: boolean;
}

export function solveCommand(io: CliIo): Command {
  return new Command('solve')
    .description('run the recursive engine on a one-line goal in the sandbox; prints the tree, the verdict and what it cost')
    .argument('<goal>', 'the goal, in one line')
    .option('--max-depth <n>', 'planning levels allowed (a cap of N fully used puts leaves at depth N)', positiveInt, 2)
    .option('--budget <tokens>', 'token allocation of the whole tree', positiveInt, 300_000)
    .option('--providers <file>', 'provider configuration (default: $RDH_PROVIDERS)')
    .option('--out <dir>', 'where the trace is saved (default: runs/solve-<time>)')
    .option('--concurrency <n>', 'siblings built at once', positiveInt, 4)
    .option('--json', 'print the result tree as JSON', false)
    .action(async (goal: string, flags: SolveFlags) => {
      if (!goal.trim() || goal.includes('\n')) throw new UsageError('<goal>: give the goal as one non-empty line, in quotes.');
      const location = locateProviderConfig(flags.providers);
      if (!location) {
        throw new UsageError('--providers: solve calls real models and needs a provider configuration; pass --providers FILE or set RDH_PROVIDERS (copy manifests/providers.example.yaml to start).');
      }
      const providers = await loadProviderConfig(location.file, { via: location.via });
      const roster = rosterFromConfig(providers);
      const out = path.resolve(flags.out ?? path.join(REPO_ROOT, 'runs', `solve-${new Date().toISOString().replace(/[:.]/g, '-')}`));
      await mkdir(out, { recursive: true });
      // Every configured key is redacted from errors, events and transcripts, even when a server echoes it.
      const keys = configuredKeys(providers);
      const transcripts = new JsonlDirectory(path.join(out, 'transcripts'));
      const clients = Object.fromEntries(
        Object.entries(clientsFromConfig(providers)).map(([name, client]) => [name, new TranscribingModelClient(client, transcripts, systemClock, new SecretCatalogue(keys))]),
      );
      const eventsFile = new JsonlFile(path.join(out, 'events.jsonl'));
      const memory = new MemoryEventSink();
      const events = {
        emit(event: EngineEvent) {
          memory.emit(event);
          void eventsFile.append(event);
        },
      };
      const sandboxes = new DockerSandboxProvider({ image: sandboxImageTag() });
      await sandboxes.ensureReady();
      try {
        const { root: raw } = await solve({
          goal, budget: flags.budget, maxDepth: flags.maxDepth, concurrency: flags.concurrency,
          roster, clients, sandboxes, workRoot: path.join(out, 'work'), runId: path.basename(out), events, secrets: keys,
        });
        const root = new SecretCatalogue(keys).redactDeep(raw);
        await writeFile(path.join(out, 'result.json'), `${JSON.stringify(root, null, 2)}\n`);
        io.out(flags.json ? `${JSON.stringify(root, null, 2)}\n` : renderSolve(root, { goal, trace: path.relative(process.cwd(), out) || '.' }));
      } finally {
        await Promise.all([eventsFile.close(), transcripts.close()]);
      }
    });
}
