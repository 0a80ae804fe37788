import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { SimServerListenError } from './serve-errors.js';

/** How long `resume` keeps trying a port someone else took during an outage before giving up. */
const RESUME_PATIENCE_MS = 10_000;

/**
 * The listening socket of the SIMULATED provider, which an outage closes for real: while it is
 * closed a connect gets ECONNREFUSED, as from a provider whose front end is down, not a reply
 * of any kind. Connections already open are let finish the reply in hand and then closed, so
 * a client cannot slip through on a kept-alive socket; it must reconnect, and is refused.
 */
export class SwitchableListener {
  private open = false;
  private boundPort = 0;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly server: Server,
    private readonly host: string,
  ) {
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** The port listened on (the one chosen, when 0 was asked for). */
  get port(): number {
    return this.boundPort;
  }

  /** True while an outage has the listening socket closed. */
  get refusing(): boolean {
    return !this.open;
  }

  /** Listens on `port` (0: any free one); a port in use is a SimServerListenError naming `--port`. */
  async listen(port: number): Promise<number> {
    await this.bind(port).catch((error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'is in use (another harness sim serve, or another server)' : error.code === 'EACCES' ? 'may not be listened on by this user' : `cannot be listened on (${error.code ?? error.message})`;
      throw new SimServerListenError(`port ${port} on ${this.host} ${why}; pick another with --port N (0 picks a free one)`, { cause: error });
    });
    this.boundPort = (this.server.address() as { port: number }).port;
    return this.boundPort;
  }

  /** Closes the listening socket: new connects are refused; idle kept-alive connections are closed now, busy ones after their reply. */
  async refuse(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    // close() stops accepting at once; its callback waits for every connection, which is not what an outage waits for.
    this.server.close();
    this.server.closeIdleConnections();
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Listens again on the same port; retries for a while if something else took it meanwhile. */
  async resume(): Promise<void> {
    if (this.open) return;
    const until = Date.now() + RESUME_PATIENCE_MS;
    for (;;) {
      try {
        await this.bind(this.boundPort);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > until) {
          throw new SimServerListenError(`port ${this.boundPort} on ${this.host} could not be listened on again after an outage (${(error as NodeJS.ErrnoException).code ?? String(error)}); restart harness sim serve`, { cause: error });
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** Closes for good: the listening socket and every connection, busy or not. */
  async close(): Promise<void> {
    const wasOpen = this.open;
    this.open = false;
    const closed = wasOpen ? new Promise<void>((resolve) => this.server.close(() => resolve())) : Promise.resolve();
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await closed;
  }

  private bind(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: Error) => {
        this.server.off('listening', onListening);
        reject(error);
      };
      const onListening = () => {
        this.server.off('error', onError);
        this.open = true;
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      this.server.listen(port, this.host);
    });
  }
}
