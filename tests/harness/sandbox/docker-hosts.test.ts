import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DockerHostPool, DockerHostSpec, NoSandboxHostError, resolveTransport } from '../../../engine/index.js';
import {
  EXIT,
  ProviderConfigInvalidError,
  UsageError,
  collectDockerHost,
  dockerHostsFrom,
  exitCodeFor,
  loadProviderConfig,
  parseDockerHostFlag,
  runCli,
} from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { scratch, yamlOf } from '../manifest/manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

describe('--docker-host', () => {
  it('reads a unix socket, a capacity, and tcp with a TLS folder or three files', () => {
    expect(parseDockerHostFlag('unix:///var/run/docker.sock')).toEqual({ url: 'unix:///var/run/docker.sock', capacity: 2, transport: 'auto' });
    expect(parseDockerHostFlag('unix:///run/d2.sock,capacity=6')).toEqual({ url: 'unix:///run/d2.sock', capacity: 6, transport: 'auto' });
    expect(parseDockerHostFlag('tcp://10.0.0.7:2376,capacity=8,tls=/certs/gpu1')).toEqual({
      url: 'tcp://10.0.0.7:2376', capacity: 8, transport: 'auto', tls: { ca: '/certs/gpu1/ca.pem', cert: '/certs/gpu1/cert.pem', key: '/certs/gpu1/key.pem' },
    });
    expect(parseDockerHostFlag('tcp://box:2376,ca=/a/ca.pem,cert=/a/c.pem,key=/a/k.pem').tls).toEqual({ ca: '/a/ca.pem', cert: '/a/c.pem', key: '/a/k.pem' });
    expect(collectDockerHost('b', collectDockerHost('a'))).toEqual(['a', 'b']);
  });

  it('refuses bad values with one line naming the part and the fix (exit 2)', () => {
    const bad = [
      'ssh://me@box',
      'tcp://10.0.0.7:2375',
      'unix:///s.sock,tls=/certs',
      'unix:///s.sock,capacity=0',
      'unix:///s.sock,capacity=two',
      'unix:///s.sock,weight=3',
      'unix:///s.sock,capacity',
      'docker.sock',
    ];
    const lines = bad.map((value) => {
      const error = (() => {
        try {
          parseDockerHostFlag(value);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error, value).toBeInstanceOf(UsageError);
      expect(exitCodeFor(error)).toBe(EXIT.usage);
      return (error as Error).message;
    });
    expect(lines).toMatchInlineSnapshot(`
      [
        "--docker-host ssh://me@box: url must be unix:///path/to/docker.sock or tcp://HOST:PORT (ssh:// is not supported; forward the socket instead)",
        "--docker-host tcp://10.0.0.7:2375: tls tcp:// needs tls (ca, cert, key): a Docker port without TLS gives root on that machine to anyone who reaches it",
        "--docker-host unix:///s.sock,tls=/certs: tls tls applies to tcp:// only; remove it for a unix socket",
        "--docker-host unix:///s.sock,capacity=0: capacity Too small: expected number to be >=1",
        "--docker-host unix:///s.sock,capacity=two: capacity must be a whole number from 1 to 256, got "two"",
        "--docker-host unix:///s.sock,weight=3: unknown option "weight"; use capacity=N, transport=bind|archive|auto, tls=DIR, or ca=/cert=/key=FILE",
        "--docker-host unix:///s.sock,capacity: "capacity" is not KEY=VALUE; use capacity=N, transport=bind|archive|auto, tls=DIR, or ca=/cert=/key=FILE",
        "--docker-host docker.sock: url must be unix:///path/to/docker.sock or tcp://HOST:PORT (ssh:// is not supported; forward the socket instead)",
      ]
    `);
  });
});

describe('docker_hosts in the provider configuration', () => {
  const base = { version: 1, providers: {}, models: {} };

  it('is read with its TLS paths relative to the file, and --docker-host flags replace it', async () => {
    const file = await tmp.write('providers-hosts.yaml', yamlOf({
      ...base,
      docker_hosts: [{ url: 'unix:///var/run/docker.sock', capacity: 3 }, { url: 'tcp://10.0.0.7:2376', tls: { ca: 'certs/ca.pem', cert: 'certs/cert.pem', key: 'certs/key.pem' } }],
    }));
    const loaded = await loadProviderConfig(file);
    const hosts = dockerHostsFrom(undefined, { hosts: loaded.config.docker_hosts, file: loaded.file });
    expect(hosts.map((h) => [h.url, h.capacity, h.tls?.ca.replace(tmp.dir, '<dir>')])).toEqual([
      ['unix:///var/run/docker.sock', 3, undefined],
      ['tcp://10.0.0.7:2376', 2, '<dir>/certs/ca.pem'],
    ]);
    expect(dockerHostsFrom(['unix:///other.sock'], { hosts: loaded.config.docker_hosts, file: loaded.file })).toEqual([{ url: 'unix:///other.sock', capacity: 2, transport: 'auto' }]);
    expect(dockerHostsFrom(undefined, undefined)).toEqual([]);
  });

  it('refuses a tcp host without TLS, naming the field', async () => {
    const file = await tmp.write('providers-plain-tcp.yaml', yamlOf({ ...base, docker_hosts: [{ url: 'tcp://10.0.0.7:2375', capacity: 2 }] }));
    const error = await loadProviderConfig(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderConfigInvalidError);
    expect((error as ProviderConfigInvalidError).problems.map((l) => l.replace(/^.*\.yaml/, '<file>'))).toMatchInlineSnapshot(`
      [
        "<file>:5: docker_hosts[0].tls: tcp:// needs tls (ca, cert, key): a Docker port without TLS gives root on that machine to anyone who reaches it",
      ]
    `);
  });
});

describe('workspace transport choice', () => {
  it('binds for a local unix socket (the default client too) and uses archives over tcp; a forced choice wins', () => {
    expect(resolveTransport(new Docker())).toBe('bind');
    expect(resolveTransport(new Docker({ socketPath: '/tmp/d2.sock' }))).toBe('bind');
    expect(resolveTransport(new Docker({ host: '10.0.0.7', port: 2376, protocol: 'https' }))).toBe('archive');
    expect(resolveTransport(new Docker({ socketPath: '/tmp/d2.sock' }), 'archive')).toBe('archive');
    expect(resolveTransport(new Docker({ host: '10.0.0.7', port: 2376, protocol: 'https' }), 'bind')).toBe('bind');
  });

  it('is forced per host by --docker-host transport=... (or transport: in docker_hosts), over the pool-wide choice', () => {
    const hosts = ['unix:///a.sock', 'unix:///b.sock,transport=archive', 'tcp://box:2376,tls=/c', 'tcp://box:2377,tls=/c,transport=bind'].map(parseDockerHostFlag);
    // No TLS files to read: clients as dockerClientFor would build them.
    const clientFor = (spec: DockerHostSpec) => (spec.url.startsWith('tcp') ? new Docker({ host: 'box', port: 2376, protocol: 'https' }) : new Docker({ socketPath: spec.url.slice(7) }));
    expect(new DockerHostPool({ hosts, image: 'x', clientFor }).status().map((h) => h.transport)).toEqual(['bind', 'archive', 'archive', 'bind']);
    expect(new DockerHostPool({ hosts, image: 'x', transport: 'archive', clientFor }).status().map((h) => h.transport)).toEqual(['archive', 'archive', 'archive', 'bind']);
    expect(() => parseDockerHostFlag('unix:///a.sock,transport=nfs')).toThrowErrorMatchingInlineSnapshot(`[UsageError: --docker-host unix:///a.sock,transport=nfs: transport must be bind, archive or auto]`);
  });
});

describe('host pool without daemons', () => {
  it('fails closed: no hosts, or none answering, is the fatal NoSandboxHostError (exit 3)', async () => {
    expect(() => new DockerHostPool({ hosts: [], image: 'x' })).toThrow(NoSandboxHostError);
    const pool = new DockerHostPool({ hosts: [DockerHostSpec.parse({ url: 'unix:///nonexistent/a.sock' }), DockerHostSpec.parse({ url: 'unix:///nonexistent/b.sock' })], image: 'x', pingTimeoutMs: 500 });
    const error = await pool.preflight().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoSandboxHostError);
    expect(exitCodeFor(error)).toBe(EXIT.environment);
    expect((error as Error).message).toMatchInlineSnapshot(`"no Docker host can run sandboxes: unix:///nonexistent/a.sock: no answer within 500 ms; unix:///nonexistent/b.sock: no answer within 500 ms. Start a daemon, fix --docker-host/docker_hosts, or build the image with \`harness sandbox build\`."`);
  });

  it('offers the sum of its answering hosts\' capacities as the concurrency to use', () => {
    // Placement by free capacity is shown on real daemons in tests/engine/adapters/docker-host-pool.test.ts.
    const pool = new DockerHostPool({ hosts: [DockerHostSpec.parse({ url: 'unix:///a.sock', capacity: 1 }), DockerHostSpec.parse({ url: 'unix:///b.sock', capacity: 3 })], image: 'x' });
    expect(pool.capacity).toBe(4);
  });
});

describe('harness sandbox hosts', () => {
  it('refuses to guess: with no host named it says how to name one (exit 2)', async () => {
    const io = bufferIo();
    vi.stubEnv('RDH_PROVIDERS', '');
    expect(await runCli(['sandbox', 'hosts'], io)).toBe(EXIT.usage);
    vi.unstubAllEnvs();
    expect(io.stderr()).toMatchInlineSnapshot(`
      "harness: --docker-host: name at least one host (e.g. --docker-host unix:///var/run/docker.sock,capacity=2), or list docker_hosts in the provider configuration
      "
    `);
  });

  it('exits 3 and names each host when none answers', async () => {
    const io = bufferIo();
    expect(await runCli(['sandbox', 'hosts', '--docker-host', 'unix:///nonexistent/a.sock'], io)).toBe(EXIT.environment);
    expect(io.stderr()).toMatch(/^harness: no Docker host can run sandboxes: unix:\/\/\/nonexistent\/a\.sock: no answer/);
  });

  it.skipIf(!HAS_DOCKER)('reports a ready local host with its image and the bind transport', async () => {
    const io = bufferIo();
    expect(await runCli(['sandbox', 'hosts', '--docker-host', 'unix:///var/run/docker.sock,capacity=3'], io)).toBe(EXIT.ok);
    expect(io.stdout()).toBe('unix:///var/run/docker.sock  capacity 3  ready, image present, workspace by bind\n3 sandbox(es) at once over 1 host(s)\n');
  });
});
