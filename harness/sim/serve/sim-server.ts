import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { LoadedManifest } from '../../manifest/manifest-loader.js';
import type { FaultPlan } from './fault-plan.js';
import { FaultInjector } from './fault-injector.js';
import { OutageControl } from './outage-control.js';
import { PromptCache } from './prompt-cache.js';
import { answerChat } from './chat-route.js';
import { sendJson, type ServerState } from './server-state.js';
import { ServedPopulations } from './served-populations.js';
import { StatsCounter, type ServerStats } from './server-stats.js';
import { SwitchableListener } from './switchable-listener.js';
import { errorBody } from './wire-request.js';

/** Where the SIMULATED provider listens: loopback only, since it checks no key and its header tells the experiment's design. */
export const SIM_SERVER_HOST = '127.0.0.1';
/** The port `harness sim serve` listens on by default (manifests/providers.sim-http.yaml points here). */
export const DEFAULT_SIM_PORT = 8787;

export interface SimServerOptions {
  /** Port on 127.0.0.1; 0 picks a free one (tests). Default 8787. */
  port?: number;
  /** The manifest whose `simulated:` block, pairs and caps are served. */
  manifest: LoadedManifest;
  /** Faults to inject. Default: none, every well-formed request is answered at once. */
  faults?: FaultPlan;
  /** One line per event worth a person's eye (an outage begun or ended, a failure answered 500). Default: standard error. */
  log?: (line: string) => void;
  /** The clock windows and per-minute limits read, in ms. Default: Date.now. */
  now?: () => number;
}

export interface SimServer {
  /** Base URL of the chat-completions API, e.g. `http://127.0.0.1:8787/v1`. */
  readonly url: string;
  readonly port: number;
  /** The two SIMULATED model ids served. */
  readonly models: readonly string[];
  /** A copy of what the server counted so far (also `GET /_rdh/stats`). */
  stats(): ServerStats;
  /** Begins (true) or ends (false) an outage by hand; resolves once connects are refused, or answered again. */
  outage(on: boolean): Promise<void>;
  /** Stops listening and closes every connection. */
  stop(): Promise<void>;
}

function route(state: ServerState, req: IncomingMessage, res: ServerResponse): Promise<void> | void {
  const path = (req.url ?? '').split('?')[0];
  if (path === '/v1/chat/completions') return answerChat(state, req, res);
  const reads: Record<string, () => unknown> = {
    '/v1/models': () => ({ object: 'list', data: state.populations.models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'rdh-sim (SIMULATED)' })) }),
    '/_rdh/stats': () => state.counter.snapshot(),
  };
  const read = path === undefined ? undefined : reads[path];
  if (read && req.method === 'GET') return sendJson(state, res, 200, read());
  state.counter.outcome('bad_request');
  if (read) sendJson(state, res, 405, errorBody(`${path} takes GET`, 'invalid_request_error'));
  else sendJson(state, res, 404, errorBody(`no route ${path}: the SIMULATED provider serves POST /v1/chat/completions, GET /v1/models and GET /_rdh/stats`, 'not_found_error', 'unknown_url'));
}

/**
 * Serves the built-in SIMULATED population as an OpenAI-compatible chat-completions API on
 * 127.0.0.1, with the faults of `faults` injected: the real openai SDK path of the engine can
 * then be exercised end to end, and what the server answers equals what the in-process
 * population answers for the same request.
 */
export async function startSimServer(options: SimServerOptions): Promise<SimServer> {
  const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const now = options.now ?? Date.now;
  const populations = await ServedPopulations.of(options.manifest);
  const counter = new StatsCounter();
  const injector = new FaultInjector(options.faults, now());
  const http = createServer();
  const listener = new SwitchableListener(http, SIM_SERVER_HOST);
  const outages = new OutageControl(listener, counter, log, now);
  const cache = options.faults?.caching ? new PromptCache(options.faults.caching) : null;
  const state: ServerState = { populations, injector, counter, listener, log, now, outages, cache, capabilities: options.faults?.capabilities };
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    Promise.resolve()
      .then(() => route(state, req, res))
      .catch((error: unknown) => {
        counter.outcome('internal_error');
        log(`harness sim serve: failed on ${req.method} ${req.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        sendJson(state, res, 500, errorBody('the SIMULATED provider failed on this request; its terminal shows why', 'server_error'));
      });
  });

  const port = await listener.listen(options.port ?? DEFAULT_SIM_PORT);
  for (const timed of injector.timedOutages()) outages.schedule(timed.afterMs, timed.forMs, `window ${timed.index + 1}, after_s`);
  return {
    url: `http://${SIM_SERVER_HOST}:${port}/v1`,
    port,
    models: populations.models,
    stats: () => counter.snapshot(),
    outage: (on) => (on ? outages.enter(null, 'by hand') : outages.leave()),
    stop: async () => {
      await outages.stop();
      await listener.close();
    },
  };
}
