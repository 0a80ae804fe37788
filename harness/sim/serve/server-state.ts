import type { ServerResponse } from 'node:http';
import type { FaultInjector } from './fault-injector.js';
import type { CapabilitiesPlan } from './fault-plan.js';
import type { PromptCache } from './prompt-cache.js';
import type { OutageControl } from './outage-control.js';
import type { ServedPopulations } from './served-populations.js';
import type { StatsCounter } from './server-stats.js';
import type { SwitchableListener } from './switchable-listener.js';

/** Shared by the routes: everything one request may read or change. */
export interface ServerState {
  readonly populations: ServedPopulations;
  readonly injector: FaultInjector;
  readonly counter: StatsCounter;
  readonly listener: SwitchableListener;
  readonly log: (line: string) => void;
  readonly now: () => number;
  readonly outages: OutageControl;
  /** The prompt cache of the plan's `caching:` section; null when caching is off. */
  readonly cache: PromptCache | null;
  /** The plan's `capabilities:`; undefined serves everything. */
  readonly capabilities: CapabilitiesPlan | undefined;
}

/** Sends a JSON body; during an outage the connection is closed after it, so the next try must reconnect. */
export function sendJson(state: ServerState, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...(state.listener.refusing ? { connection: 'close' } : {}), ...headers });
  res.end(JSON.stringify(body));
}
