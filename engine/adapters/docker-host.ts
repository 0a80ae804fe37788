import { readFileSync } from 'node:fs';
import Docker from 'dockerode';
import { z } from 'zod';
import { DockerUnavailableError } from '../base/errors.js';

/**
 * One Docker daemon sandboxes may run on. `unix://` for a daemon on this machine, `tcp://` with
 * mutual TLS for another machine. Plain tcp is refused: an unauthenticated Docker port is root
 * on that machine for anyone who can reach it. ssh is not supported (no test covers it).
 */
export const DockerHostSpec = z
  .object({
    url: z
      .string()
      .regex(/^(unix:\/\/\/\S+|tcp:\/\/[^\s/:]+:\d{1,5})$/, 'must be unix:///path/to/docker.sock or tcp://HOST:PORT (ssh:// is not supported; forward the socket instead)')
      .describe('Where the daemon listens: unix:///path/docker.sock or tcp://HOST:PORT. No default.')
      .meta({ examples: ['unix:///var/run/docker.sock', 'tcp://10.0.0.7:2376'] }),
    capacity: z
      .number()
      .int()
      .min(1)
      .max(256)
      .default(2)
      .describe('How many sandboxes this host runs at once, as a share of the pool: sessions go to the host with the most free capacity. Default 2.')
      .meta({ examples: [4] }),
    transport: z
      .enum(['auto', 'bind', 'archive'], { error: 'must be bind, archive or auto' })
      .default('auto')
      .describe('How workspaces reach this host: bind-mount the folder (a daemon sharing this filesystem), archive (tar streams into a volume; needs nothing shared), or auto (bind for a unix socket, archive otherwise). Default auto.')
      .meta({ examples: ['archive'] }),
    tls: z
      .object({
        ca: z.string().min(1).describe('CA certificate (PEM) the daemon certificate must chain to. No default.'),
        cert: z.string().min(1).describe('Client certificate (PEM). No default.'),
        key: z.string().min(1).describe('Client private key (PEM). No default.'),
      })
      .strict()
      .optional()
      .describe('Paths of the files for mutual TLS; required for tcp://, refused for unix://. Default none.')
      .meta({ examples: [{ ca: '~/.docker/ca.pem', cert: '~/.docker/cert.pem', key: '~/.docker/key.pem' }] }),
  })
  .strict()
  .superRefine((spec, ctx) => {
    const tcp = spec.url.startsWith('tcp://');
    if (tcp && !spec.tls) ctx.addIssue({ code: 'custom', path: ['tls'], message: 'tcp:// needs tls (ca, cert, key): a Docker port without TLS gives root on that machine to anyone who reaches it' });
    if (!tcp && spec.tls) ctx.addIssue({ code: 'custom', path: ['tls'], message: 'tls applies to tcp:// only; remove it for a unix socket' });
  });
export type DockerHostSpec = z.infer<typeof DockerHostSpec>;

/** A dockerode client for `spec`. Reads the TLS files now, so a missing one fails before any work. */
export function dockerClientFor(spec: DockerHostSpec): Docker {
  if (spec.url.startsWith('unix://')) return new Docker({ socketPath: spec.url.slice('unix://'.length) });
  const { hostname, port } = new URL(spec.url.replace(/^tcp:/, 'https:'));
  const tls = spec.tls!;
  const read = (what: keyof typeof tls): Buffer => {
    try {
      return readFileSync(tls[what]);
    } catch (cause) {
      throw new DockerUnavailableError(`${spec.url} (its tls.${what} file ${tls[what]} cannot be read)`, { cause });
    }
  };
  return new Docker({ protocol: 'https', host: hostname, port: Number(port), ca: read('ca'), cert: read('cert'), key: read('key') });
}
