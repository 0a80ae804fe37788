import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import Docker from 'dockerode';
import { DockerHostSpec, openDockerHostPool } from '../../engine/index.js';

const run = promisify(execFile);

/**
 * A private Docker daemon for multi-host tests: its own socket, data-root, exec-root, pidfile
 * and containerd namespace, no bridge and no iptables rules, so it shares nothing with the
 * machine's daemon. It also listens on 127.0.0.1 over tcp with mutual TLS, using a CA and
 * certificates made here with openssl.
 */
export interface SecondDockerd {
  dir: string;
  socket: string;
  tcpUrl: string;
  tls: { ca: string; cert: string; key: string };
  /**
   * Take the daemon away mid-run: `SIGKILL` (connections refused at once, as a crashed machine)
   * or `SIGSTOP` (connections hang, as a machine that froze or lost its network).
   */
  kill(signal?: 'SIGKILL' | 'SIGSTOP'): void;
  /** Stop the daemon as an operator would (SIGTERM; its containers are stopped) and wait until it has exited. */
  stop(): Promise<void>;
  /** Start it again on the same socket and data-root, so the images and containers it held are back. */
  restart(): Promise<void>;
  /** Copy an image of the machine's daemon onto it (the host pool's save/load), unless it holds it already. */
  loadImage(image: string): Promise<void>;
  /** Stop everything it started (restarting it first if killed, so its containers are stopped) and delete its folders. */
  cleanup(): Promise<void>;
}

export async function startSecondDockerd(): Promise<SecondDockerd> {
  // Short: containerd's sockets live under the exec-root and unix socket paths are capped at 108 bytes.
  const dir = await mkdtemp('/tmp/rdh-d2-');
  const tls = await makeCertificates(dir);
  const port = await freePort();
  const socket = path.join(dir, 'd.sock');
  await writeFile(path.join(dir, 'daemon.json'), '{}\n');
  const args = [
    `--host=unix://${socket}`, `--host=tcp://127.0.0.1:${port}`,
    '--tlsverify', `--tlscacert=${tls.ca}`, `--tlscert=${path.join(dir, 'server-cert.pem')}`, `--tlskey=${path.join(dir, 'server-key.pem')}`,
    `--data-root=${dir}/data`, `--exec-root=${dir}/x`, `--pidfile=${dir}/d.pid`, `--config-file=${dir}/daemon.json`,
    '--bridge=none', '--iptables=false', '--ip-masq=false', '--shutdown-timeout=2',
    '--containerd-namespace=rdh2', '--containerd-plugins-namespace=rdh2p',
  ];
  const started: ChildProcess[] = [];
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn('dockerd', args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (d: Buffer) => {
      log = (log + d.toString()).slice(-4000);
    });
    started.push(child);
    const docker = new Docker({ socketPath: socket });
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`second dockerd exited (${child.exitCode}): ${log}`);
      if (await docker.ping().then(() => true, () => false)) return child;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`second dockerd did not answer within 30 s: ${log}`);
  };
  let daemon = await launch();
  let killed = false;
  let stopped = false;
  return {
    dir,
    socket,
    tcpUrl: `tcp://127.0.0.1:${port}`,
    tls,
    kill(signal = 'SIGKILL') {
      if (signal === 'SIGSTOP') stopped = true;
      else killed = true;
      daemon.kill(signal);
    },
    async stop() {
      if (daemon.exitCode !== null || daemon.signalCode !== null) return;
      const exited = new Promise((r) => daemon.once('exit', r));
      daemon.kill('SIGTERM');
      await exited;
    },
    async restart() {
      if (killed) await endOrphanedContainerd(dir);
      killed = false;
      daemon = await launch();
    },
    async loadImage(image) {
      const { pool } = await openDockerHostPool({ hosts: [DockerHostSpec.parse({ url: `unix://${socket}`, capacity: 1 })], image, imageSource: new Docker() });
      pool.close();
    },
    async cleanup() {
      try {
        // A killed dockerd leaves its containers running under its containerd; a restart finds
        // and stops them, and a clean stop then ends containerd and unmounts the layers.
        if (stopped) daemon.kill('SIGCONT');
        if (killed) daemon = await endOrphanedContainerd(dir).then(launch).catch(() => daemon);
        if (daemon.exitCode === null) {
          const exited = new Promise((r) => daemon.once('exit', r));
          daemon.kill('SIGTERM');
          await Promise.race([exited, new Promise((r) => setTimeout(r, 20_000))]);
        }
      } finally {
        for (const child of started) {
          try {
            if (child.pid) process.kill(-child.pid, 'SIGKILL');
          } catch {
            // the group is already gone
          }
        }
        await killLeftovers(dir);
        const mounts = (await readFile('/proc/mounts', 'utf8')).split('\n').map((l) => l.split(' ')[1] ?? '').filter((m) => m.startsWith(dir));
        for (const m of mounts.sort().reverse()) await run('umount', ['-l', m]).catch(() => undefined);
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * A SIGKILLed dockerd's containerd leaves its shims running: they are daemonised (outside the
 * daemon's process group) and keep the containers they hold alive. Each names the data dir in
 * its `-address`, so it is found by that; its containers' first processes (its children) go
 * first, which ends each container's pid namespace, then the shim.
 */
async function killLeftovers(dir: string): Promise<void> {
  const shims = (await processesNaming(dir)).map((p) => p.pid);
  if (!shims.length) return;
  for (const pid of await pidsNow()) {
    // /proc/PID/stat: "pid (comm) state ppid ...", comm may hold spaces and parentheses.
    const ppid = Number((await procFile(pid, 'stat')).split(') ').at(-1)?.split(' ')[1]);
    if (shims.includes(ppid)) signal(pid);
  }
  shims.forEach(signal);
}

/**
 * A SIGKILLed dockerd's containerd runs on in a session of its own, and a dockerd started at once
 * on the same exec-root waits for it and gives up ("timeout waiting for containerd to start",
 * every time when the restart came within a second of the kill). Ended first, as the machine
 * restarting would, with its pid file; its shims stay, and the new containerd takes their
 * containers back.
 */
async function endOrphanedContainerd(dir: string): Promise<void> {
  const pids = (await processesNaming(dir)).filter((p) => path.basename(p.args[0] ?? '') === 'containerd').map((p) => p.pid);
  pids.forEach(signal);
  // Gone once its /proc entry is, or is a zombie ("Z" after the comm) no one has reaped yet.
  const alive = async (pid: number) => /^\S+ \(.*\) [^Z]/s.test(await procFile(pid, 'stat'));
  for (let i = 0; i < 100; i++) {
    if (!(await Promise.all(pids.map(alive))).some(Boolean)) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  // dockerd trusts its pid file while that pid answers a signal, and a zombie does: the file goes too.
  await rm(path.join(dir, 'x', 'containerd', 'containerd.pid'), { force: true });
}

const pidsNow = async (): Promise<number[]> => (await readdir('/proc')).filter((p) => /^\d+$/.test(p)).map(Number);
const procFile = (pid: number, file: string): Promise<string> => readFile(`/proc/${pid}/${file}`, 'utf8').catch(() => '');

/** The processes whose command line names `dir` or a path under it (this daemon's shims and its containerd), with their arguments. */
async function processesNaming(dir: string): Promise<Array<{ pid: number; args: string[] }>> {
  const found: Array<{ pid: number; args: string[] }> = [];
  for (const pid of await pidsNow()) {
    const args = (await procFile(pid, 'cmdline')).split('\0');
    if (args.some((arg) => arg === dir || arg.startsWith(dir + path.sep))) found.push({ pid, args });
  }
  return found;
}

function signal(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

async function makeCertificates(dir: string): Promise<{ ca: string; cert: string; key: string }> {
  const p = (f: string) => path.join(dir, f);
  const ossl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await ossl('req', '-x509', ...ec, '-keyout', p('ca-key.pem'), '-out', p('ca.pem'), '-days', '1', '-subj', '/CN=rdh-test-ca');
  await writeFile(p('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  await writeFile(p('client.ext'), 'extendedKeyUsage=clientAuth\n');
  await ossl('req', ...ec, '-keyout', p('server-key.pem'), '-out', p('server.csr'), '-subj', '/CN=localhost');
  await ossl('x509', '-req', '-in', p('server.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca-key.pem'), '-CAcreateserial', '-out', p('server-cert.pem'), '-days', '1', '-extfile', p('server.ext'));
  await ossl('req', ...ec, '-keyout', p('key.pem'), '-out', p('client.csr'), '-subj', '/CN=rdh-test-client');
  await ossl('x509', '-req', '-in', p('client.csr'), '-CA', p('ca.pem'), '-CAkey', p('ca-key.pem'), '-CAcreateserial', '-out', p('cert.pem'), '-days', '1', '-extfile', p('client.ext'));
  return { ca: p('ca.pem'), cert: p('cert.pem'), key: p('key.pem') };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}
