import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ScriptedHttpReply {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent raw (for malformed bodies). */
  body: unknown;
  /** Send the headers and the first `after` characters of the body, then stall forever or reset the connection. */
  cut?: { after: number; then: 'stall' | 'reset' };
}

export type Responder = (request: { path: string; body: Record<string, unknown>; headers: IncomingMessage['headers'] }) => ScriptedHttpReply | Promise<ScriptedHttpReply>;

/** A chat completion body in the OpenAI wire format. */
export function completion(options: {
  content?: string | null;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  model?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; cached_tokens?: number };
  finishReason?: string;
}): Record<string, unknown> {
  const usage = options.usage ?? { prompt_tokens: 10, completion_tokens: 5 };
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: options.model ?? 'test-model',
    choices: [
      {
        index: 0,
        finish_reason: options.finishReason ?? (options.toolCalls?.length ? 'tool_calls' : 'stop'),
        message: {
          role: 'assistant',
          content: options.content ?? null,
          ...(options.toolCalls?.length
            ? { tool_calls: options.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
      },
    ],
    usage: {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
      ...(usage.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached_tokens } } : {}),
    },
  };
}

/**
 * A local HTTP server speaking the chat-completions protocol, so the real openai SDK can be
 * exercised end to end: tool calls, 429 with Retry-After, 5xx, malformed bodies, bodies that
 * stall or break off half way.
 */
export class ChatServer {
  readonly requests: Array<{ path: string; body: Record<string, unknown>; at: number; headers: IncomingMessage['headers'] }> = [];
  /** Sockets that carried a request and are not yet closed: a client that gave up must have closed its own. */
  readonly openSockets = new Set<Socket>();
  private readonly sockets = new Set<Socket>();
  private server: Server | null = null;
  /** The port it listens on, or last listened on once stopped. */
  port = 0;
  constructor(private responder: Responder) {}

  setResponder(responder: Responder): void {
    this.responder = responder;
  }

  /**
   * Listens on `port` (default: any free one; give the one a stopped server had to bring it back
   * where its clients expect it, for an outage that ends) on `host` (default 127.0.0.1).
   */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    this.server = createServer(async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      this.requests.push({ path: req.url ?? '', body, at: Date.now(), headers: req.headers });
      if (!req.socket.destroyed) {
        this.openSockets.add(req.socket);
        req.socket.once('close', () => this.openSockets.delete(req.socket));
      }
      const reply = await this.responder({ path: req.url ?? '', body, headers: req.headers });
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      if (!reply.cut) {
        res.end(text);
        return;
      }
      res.write(text.slice(0, reply.cut.after));
      if (reply.cut.then === 'reset') setTimeout(() => req.socket.destroy(), 20);
    });
    this.server.on('connection', (socket) => this.sockets.add(socket.once('close', () => this.sockets.delete(socket))));
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    this.port = (this.server.address() as { port: number }).port;
    return `http://${host}:${this.port}/v1`;
  }

  /** Resolves once every socket has closed, or rejects after `ms`. */
  async socketsClosed(ms = 2_000): Promise<void> {
    const until = Date.now() + ms;
    while (this.openSockets.size && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    if (this.openSockets.size) throw new Error(`${this.openSockets.size} socket(s) still open after ${ms} ms`);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
    this.server = null;
  }
}
