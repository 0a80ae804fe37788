import path from 'node:path';
import { Command } from 'commander';
import { EXIT } from '../exit-codes.js';
import { portNumber } from '../internal/cli-parsers.js';
import type { CliIo } from '../io.js';
import { loadManifest } from '../manifest/manifest-loader.js';
import { REPO_ROOT } from '../paths.js';
import { loadFaultPlan } from '../sim/serve/fault-plan.js';
import { DEFAULT_SIM_PORT, startSimServer } from '../sim/serve/sim-server.js';

/** The manifest `harness sim serve` serves when none is named, as the start line names it. */
export const DEFAULT_SERVED_MANIFEST = 'manifests/smoke-http.yaml';

interface ServeFlags {
  port: number;
  manifest?: string;
  faults?: string;
}

/** The first SIGINT or SIGTERM; a second one while stopping ends the process at once (130). `dispose` removes the handlers. */
function firstSignal(): { signal: Promise<string>; dispose: () => void } {
  let seen = 0;
  let resolve: (signal: string) => void = () => undefined;
  const signal = new Promise<string>((r) => (resolve = r));
  const onSignal = (name: string) => {
    if (++seen > 1) process.exit(EXIT.interrupted);
    resolve(name);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { signal, dispose: () => void (process.off('SIGINT', onSignal), process.off('SIGTERM', onSignal)) };
}

/** `harness sim serve`: the built-in SIMULATED population as an OpenAI-compatible server, until a signal stops it. */
async function serve(io: CliIo, flags: ServeFlags): Promise<void> {
  // The default is the checkout's, named relative to where the command runs, as a person would type it.
  const loaded = await loadManifest(flags.manifest ?? (path.relative(process.cwd(), path.join(REPO_ROOT, DEFAULT_SERVED_MANIFEST)) || DEFAULT_SERVED_MANIFEST));
  const faults = flags.faults === undefined ? undefined : await loadFaultPlan(flags.faults);
  const server = await startSimServer({ port: flags.port, manifest: loaded, ...(faults ? { faults: faults.plan } : {}), log: (line) => io.err(`${line}\n`) });
  const stopping = firstSignal();
  io.out(`harness sim serve: SIMULATED provider (the built-in population, not a real model) on ${server.url}, manifest ${loaded.shownAs}, faults: ${faults?.shownAs ?? 'none'}\n`);
  io.out(`  models: ${server.models.join(', ')}; stats: GET http://127.0.0.1:${server.port}/_rdh/stats; Ctrl-C stops it\n`);
  const signal = await stopping.signal;
  await server.stop();
  stopping.dispose();
  const s = server.stats();
  io.out(`harness sim serve: stopped (${signal}) after ${s.received} chat request(s): ${s.answered} answered, ${s.rateLimited.drawn + s.rateLimited.requestsPerMinute + s.rateLimited.tokensPerMinute} rate limited, ${s.serverErrors} 5xx, ${s.badRequests} refused, ${s.outagesEntered} outage(s)\n`);
}

export function simCommand(io: CliIo): Command {
  const sim = new Command('sim').description('the built-in SIMULATED agent population, outside the engine');
  sim
    .command('serve')
    .description('serve the SIMULATED population as an OpenAI-compatible chat-completions API on 127.0.0.1, with injected faults, so the paid path can be tried without a key')
    .option('--port <n>', `port on 127.0.0.1; 0 picks a free one (default: ${DEFAULT_SIM_PORT})`, portNumber, DEFAULT_SIM_PORT)
    .option('--manifest <file>', `the manifest whose simulated: block, pairs and caps are served (default: ${DEFAULT_SERVED_MANIFEST})`)
    .option('--faults <file>', 'a fault plan (YAML): 429s, latency, outages, 5xx bursts, per-minute limits with rate-limit headers, prompt caching, capabilities; see manifests/faults.example.yaml (default: none)')
    .addHelpText(
      'after',
      [
        '',
        'Every call must carry the x-rdh-call header (cell, arm, node, role, attempt, session): the',
        "server rebuilds that cell's simulated world from it and answers exactly as the in-process",
        'population would. Model ids keep their (SIMULATED) tag. Runs until Ctrl-C or SIGTERM (exit 0).',
        'Exit code 2: a bad manifest or fault plan; 3: the port cannot be listened on.',
        '',
      ].join('\n'),
    )
    .action((flags: ServeFlags) => serve(io, flags));
  return sim;
}
