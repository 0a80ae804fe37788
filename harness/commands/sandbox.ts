import { Command } from 'commander';
import Docker from 'dockerode';
import { openDockerHostPool, pruneSandboxes } from '../../engine/index.js';
import { loadProviderConfig, locateProviderConfig } from '../providers/provider-config.js';
import { collectDockerHost, dockerHostsFrom } from '../sandbox/docker-hosts.js';
import type { CliIo } from '../io.js';
import { BuildMethod, buildSandboxImage, sandboxImageStatus, sandboxImageTag } from '../sandbox/sandbox-image.js';
import { UsageError } from '../exit-codes.js';

export function sandboxCommand(io: CliIo): Command {
  const sandbox = new Command('sandbox').description('build, inspect and clean up the container image agent code runs in');

  sandbox
    .command('build')
    .description('build the sandbox image (Python 3 + pytest), tagged by a digest of its recipe; skipped when current')
    .option('--method <method>', 'auto | dockerfile | debootstrap (auto: Dockerfile when a registry answers, else debootstrap)', 'auto')
    .option('--force', 'rebuild even when the current tag exists', false)
    .option('--json', 'print the result as JSON', false)
    .action(async (opts: { method: string; force: boolean; json: boolean }) => {
      const method = BuildMethod.safeParse(opts.method);
      if (!method.success) {
        throw new UsageError(`--method: expected auto, dockerfile or debootstrap, got ${JSON.stringify(opts.method)}`);
      }
      const result = await buildSandboxImage({
        docker: new Docker(),
        method: method.data,
        force: opts.force,
        log: opts.json ? undefined : (line) => io.err(`  ${line}\n`),
      });
      if (opts.json) io.out(`${JSON.stringify(result)}\n`);
      else io.out(`sandbox image ${result.tag} ready (${result.method}${result.seconds ? `, ${result.seconds} s` : ''})\n`);
    });

  sandbox
    .command('status')
    .description('say whether the current sandbox image is present, and list stale ones')
    .option('--json', 'print the status as JSON', false)
    .action(async (opts: { json: boolean }) => {
      const status = await sandboxImageStatus(new Docker());
      if (opts.json) {
        io.out(`${JSON.stringify(status)}\n`);
        return;
      }
      io.out(
        status.present
          ? `${status.tag}: present and current (built by ${status.method ?? 'unknown'}, ${status.sizeMb} MB, ${status.created})\n`
          : `${status.tag}: absent. Run \`harness sandbox build\`.\n`,
      );
      if (status.stale.length) io.out(`stale (older recipes, safe to remove): ${status.stale.join(', ')}\n`);
    });

  sandbox
    .command('prune')
    .description('remove sandbox containers whose harness process is gone (left by a crash or kill)')
    .option('--all', 'remove every sandbox container, including ones a live harness still uses', false)
    .option('--run <id>', 'only containers of this run id')
    .option('--json', 'print the result as JSON', false)
    .action(async (opts: { all: boolean; run?: string; json: boolean }) => {
      const result = await pruneSandboxes(new Docker(), { all: opts.all, runId: opts.run });
      if (opts.json) io.out(`${JSON.stringify(result)}\n`);
      else io.out(`removed ${result.removed.length} container(s)${result.volumes.length ? ` and ${result.volumes.length} workspace volume(s)` : ''}${result.kept.length ? `, kept ${result.kept.length} owned by a live process` : ''}\n`);
    });

  sandbox
    .command('hosts')
    .description('preflight the Docker hosts a sweep would use: each must answer, and gets the sandbox image copied over (save/load) if it lacks it')
    .option('--docker-host <spec>', 'a host: URL[,capacity=N][,transport=bind|archive|auto][,tls=DIR | ,ca=FILE,cert=FILE,key=FILE]; repeat for more (replaces docker_hosts)', collectDockerHost, [])
    .option('--providers <file>', 'provider configuration whose docker_hosts to check (default: $RDH_PROVIDERS)')
    .option('--json', 'print the preflight as JSON', false)
    .action(async (opts: { dockerHost: string[]; providers?: string; json: boolean }) => {
      const location = opts.dockerHost.length ? undefined : locateProviderConfig(opts.providers);
      const loaded = location ? await loadProviderConfig(location.file, { via: location.via }) : undefined;
      const hosts = dockerHostsFrom(opts.dockerHost, loaded ? { hosts: loaded.config.docker_hosts, file: loaded.file } : undefined);
      if (!hosts.length) throw new UsageError('--docker-host: name at least one host (e.g. --docker-host unix:///var/run/docker.sock,capacity=2), or list docker_hosts in the provider configuration');
      const { pool, preflight } = await openDockerHostPool({ hosts, image: sandboxImageTag() });
      pool.close();
      if (opts.json) {
        io.out(`${JSON.stringify(preflight)}\n`);
        return;
      }
      for (const [i, p] of preflight.entries()) {
        const state = p.problem ? `DRAINED: ${p.problem}` : `ready, image ${p.image}, workspace by ${p.transport}`;
        io.out(`${p.url}  capacity ${hosts[i]!.capacity}  ${state}\n`);
      }
      io.out(`${pool.capacity} sandbox(es) at once over ${preflight.filter((p) => !p.problem).length} host(s)\n`);
    });

  return sandbox;
}
