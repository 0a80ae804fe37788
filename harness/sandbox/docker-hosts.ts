import path from 'node:path';
import { DockerHostSpec } from '../../engine/index.js';
import { UsageError } from '../exit-codes.js';

/**
 * Reads one `--docker-host` value: `URL[,capacity=N][,transport=bind|archive|auto][,tls=DIR | ,ca=FILE,cert=FILE,key=FILE]`.
 * `tls=DIR` means DIR/ca.pem, DIR/cert.pem and DIR/key.pem, as Docker's own DOCKER_CERT_PATH.
 * Examples: `unix:///var/run/docker.sock,capacity=4`, `tcp://10.0.0.7:2376,capacity=8,tls=~/.docker/gpu1`.
 * Throws {@link UsageError} naming the part and the fix.
 */
export function parseDockerHostFlag(value: string): DockerHostSpec {
  const [url = '', ...parts] = value.split(',').map((p) => p.trim());
  const raw: Record<string, unknown> = { url };
  const tls: Record<string, string> = {};
  for (const part of parts) {
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq) : part;
    const val = eq > 0 ? part.slice(eq + 1) : '';
    if (!val) throw new UsageError(`--docker-host ${value}: "${part}" is not KEY=VALUE; use capacity=N, transport=bind|archive|auto, tls=DIR, or ca=/cert=/key=FILE`);
    if (key === 'capacity') {
      if (!/^\d+$/.test(val)) throw new UsageError(`--docker-host ${value}: capacity must be a whole number from 1 to 256, got "${val}"`);
      raw.capacity = Number(val);
    } else if (key === 'transport') {
      raw.transport = val;
    } else if (key === 'tls') {
      for (const f of ['ca', 'cert', 'key'] as const) tls[f] ??= path.join(val, `${f}.pem`);
    } else if (key === 'ca' || key === 'cert' || key === 'key') {
      tls[key] = val;
    } else {
      throw new UsageError(`--docker-host ${value}: unknown option "${key}"; use capacity=N, transport=bind|archive|auto, tls=DIR, or ca=/cert=/key=FILE`);
    }
  }
  if (Object.keys(tls).length) raw.tls = tls;
  const parsed = DockerHostSpec.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.join('.') || 'url';
  throw new UsageError(`--docker-host ${value}: ${field} ${issue.message}`);
}

/**
 * The hosts a sweep runs on: the `--docker-host` flags when any are given (they replace the
 * configuration's list, so one command line can try another set), else the provider
 * configuration's `docker_hosts`, else none (the caller then uses its single default daemon).
 */
export function dockerHostsFrom(
  flags: readonly string[] | undefined,
  configured: { hosts: readonly DockerHostSpec[] | undefined; /** The configuration file: its tls paths are relative to its folder. */ file: string } | undefined,
): DockerHostSpec[] {
  if (flags?.length) return flags.map(parseDockerHostFlag);
  if (!configured?.hosts) return [];
  const dir = path.dirname(configured.file);
  return configured.hosts.map((h) =>
    h.tls ? { ...h, tls: { ca: path.resolve(dir, h.tls.ca), cert: path.resolve(dir, h.tls.cert), key: path.resolve(dir, h.tls.key) } } : { ...h },
  );
}

/** For commander: `.option('--docker-host <spec>', '...', collectDockerHost, [])`. */
export function collectDockerHost(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
