import { createServer, type Server } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * A static file server on 127.0.0.1 for the browser tests, the README picture and `make_site.sh --watch`, behaving like a plain static host:
 * the site is served under `base`, a folder answers with its index.html, anything else 404s.
 * Every request is recorded, so a test can see what a page asked for.
 */

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.svg': 'image/svg+xml', '.css': 'text/css', '.js': 'text/javascript', '.json': 'application/json' };

export interface StaticServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export interface ServeOptions {
  /** The port on 127.0.0.1. Default 0: any free one (the URL says which). */
  port?: number;
  /** The HTML body of a 404 (the watch's says the page may not be built yet). Default: a plain "not found". */
  notFound?: string;
}

/** A port that was taken or refused; `code` is the listen error's (EADDRINUSE, EACCES). */
export class ListenError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

export async function serveStatic(root: string, base = '/', options: ServeOptions = {}): Promise<StaticServer> {
  const requests: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push(url.pathname);
    const send = (code: number, body: string | Buffer, type = 'text/plain; charset=utf-8') => {
      res.writeHead(code, { 'Content-Type': type });
      res.end(body);
    };
    if (!url.pathname.startsWith(base)) return send(404, 'not under the base path');
    let rel: string;
    try {
      rel = decodeURIComponent(url.pathname.slice(base.length));
    } catch {
      return send(400, 'bad path');
    }
    const file = path.resolve(root, rel);
    if (file !== root && !file.startsWith(root + path.sep)) return send(403, 'outside the site');
    const info = await stat(file).catch(() => undefined);
    const target = info?.isDirectory() ? path.join(file, 'index.html') : file;
    if (info?.isDirectory() && !url.pathname.endsWith('/')) {
      res.writeHead(301, { Location: `${url.pathname}/` });
      return res.end();
    }
    const body = await readFile(target).catch(() => undefined);
    if (!body) return options.notFound === undefined ? send(404, 'not found') : send(404, options.notFound, TYPES['.html']);
    send(200, body, TYPES[path.extname(target)] ?? 'application/octet-stream');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(new ListenError(`cannot listen on 127.0.0.1:${options.port ?? 0} (${error.code ?? error.message})`, error.code ?? 'unknown')));
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('the static server has no port');
  return {
    url: `http://127.0.0.1:${address.port}${base}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // A browser's keep-alive connection would hold close() open until it times out.
        server.closeAllConnections();
      }),
  };
}
