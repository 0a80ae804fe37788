import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DockerSandboxProvider,
  SANDBOX_LABELS,
  TRUNCATION_MARKER,
  WorkspacePathError,
  type Sandbox,
} from '../../../engine/index.js';
import { runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { HAS_DOCKER, TRANSPORTS, testProvider } from '../../support/docker.js';

const RUN = `vitest-sandbox-${process.pid}`;

async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(path.join(tmpdir(), prefix));
}

/**
 * Every process in a sandbox's container but its PID 1, as the daemon's host lists them: it
 * needs no pid inside, so it sees a container whose pids are all taken.
 */
async function leftovers(box: Sandbox): Promise<string[]> {
  const container = new Docker().getContainer(box.id);
  const init = String((await container.inspect()).State.Pid);
  const { Processes } = (await container.top({ ps_args: '-o pid,stat,args' })) as { Processes: string[][] | null };
  return (Processes ?? []).filter(([pid]) => pid !== init).map((p) => p.join(' '));
}

/** One busy loop per core, so whatever runs meanwhile waits for a CPU. The caller kills them. */
function busyCores(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }));
}

/** Forks a process that takes every pid there is, prints `full` when none is left, and exits (the hog lives on). */
const PID_HOG = `import os, time
def cgroup(name):
    for d in ('/sys/fs/cgroup/', '/sys/fs/cgroup/pids/'):
        try:
            with open(d + name) as f:
                return int(f.read())
        except OSError:
            pass
if os.fork() == 0:
    null = os.open('/dev/null', os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    while True:
        try:
            if os.fork() == 0:
                time.sleep(1000)
                os._exit(0)
        except OSError:
            time.sleep(0.001)
while cgroup('pids.current') < cgroup('pids.max'):
    time.sleep(0.05)
print('full')
`;

async function containersOf(runId: string): Promise<string[]> {
  const list = await new Docker().listContainers({ all: true, filters: { label: [`${SANDBOX_LABELS.run}=${runId}`] } });
  return list.map((c) => c.Id);
}

// The isolation and file-tool tests hold for both ways of getting the workspace into the container.
describe.skipIf(!HAS_DOCKER).each(TRANSPORTS)('DockerSandbox against a real daemon (%s transport)', (transport) => {
  let sandbox: Sandbox;
  let hostSecretDir: string;

  beforeAll(async () => {
    hostSecretDir = await tempDir('rdh-host-secret-');
    await writeFile(path.join(hostSecretDir, 'secret.txt'), 'HOST-SECRET-7f3a91\n');
    sandbox = await testProvider({ transport }).create({ workspaceDir: await tempDir('rdh-ws-'), runId: RUN, purpose: 'isolation' });
  });

  afterAll(async () => {
    await sandbox?.dispose();
    await rm(hostSecretDir, { recursive: true, force: true });
  });

  it('separates stdout from stderr and treats a non-zero exit as a result', async () => {
    const result = await sandbox.exec('echo out; echo err >&2; exit 7');
    expect(result).toMatchObject({ exitCode: 7, stdout: 'out\n', stderr: 'err\n', timedOut: false, truncated: false });
  });

  it('runs as a non-root user with no capabilities on a read-only root', async () => {
    const result = await sandbox.exec('id -u; grep CapEff /proc/self/status; touch /usr/x 2>/dev/null && echo wrote || echo refused');
    const [uid, caps, write] = result.stdout.trim().split('\n');
    expect(Number(uid)).not.toBe(0);
    expect(caps).toMatch(/CapEff:\s+0+$/);
    expect(write).toBe('refused');
  });

  it('cannot open a TCP connection anywhere, not even to the host', async () => {
    const server = createServer((s) => s.end('hello')).listen(0, '0.0.0.0');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as { port: number }).port;
    const script = `
import socket
for host in ['1.1.1.1', '172.17.0.1', '10.0.0.1', 'deb.debian.org']:
    try:
        socket.create_connection((host, ${port} if host.startswith('172') else 80), timeout=2)
        print('CONNECTED', host)
    except OSError as e:
        print('refused', host, type(e).__name__)
`;
    const result = await sandbox.exec(`python3 -c "${script.replace(/"/g, '\\"')}"; ls /sys/class/net`);
    server.close();
    expect(result.stdout).not.toContain('CONNECTED');
    expect(result.stdout.match(/refused/g)).toHaveLength(4);
    expect(result.stdout.trim().split('\n').at(-1)).toBe('lo');
  });

  it('sees no host files outside its workspace and no Docker socket', async () => {
    const result = await sandbox.exec(
      `grep -rs HOST-SECRET-7f3a91 / --exclude-dir=proc --exclude-dir=sys | head -1; test -e /var/run/docker.sock && echo SOCKET; ls ${JSON.stringify(hostSecretDir)} 2>&1; cat /proc/mounts | grep -c workspace`,
      { timeoutMs: 60_000 },
    );
    expect(result.stdout).not.toContain('HOST-SECRET');
    expect(result.stdout).not.toContain('SOCKET');
    expect(result.stdout).toContain('No such file or directory');
    expect(result.stdout.trim().split('\n').at(-1)).toBe('1');
  });

  it('ends a fork bomb as a result with both cores busy, and leaves nothing of it to the next command', async () => {
    // Load was what once let the bomb, or the kill sent after it, reach into the next command.
    const hogs = busyCores();
    try {
      const result = await sandbox.exec('bomb() { bomb | bomb & }; bomb; sleep 3; echo survived-start', { timeoutMs: 5_000 });
      expect(result.exitCode === null || result.exitCode !== 0 || result.stdout.includes('survived-start')).toBe(true);
      expect(await leftovers(sandbox)).toEqual([]);
      const after = await sandbox.exec('echo alive', { timeoutMs: 20_000 });
      expect(after).toMatchObject({ exitCode: 0, stdout: 'alive\n' });
    } finally {
      for (const hog of hogs) hog.kill('SIGKILL');
    }
  });

  it('ends what a command left running in the background before it returns, so the next command sees none of it', async () => {
    const started = await sandbox.exec('sleep 1000 >/dev/null 2>&1 & echo $! > bg.pid; echo started');
    expect(started).toMatchObject({ exitCode: 0, stdout: 'started\n' });
    expect(await leftovers(sandbox)).toEqual([]);
    const seen = await sandbox.exec('kill -0 "$(cat bg.pid)" 2>/dev/null && echo running || echo gone; cat /proc/[0-9]*/comm');
    expect(seen.stdout.split('\n')[0]).toBe('gone');
    expect(seen.stdout).not.toContain('sleep');
  });

  it('runs a command and its sweep as one exec: three commands, three execs, their output as written', async () => {
    const docker = new Docker();
    // To the millisecond (the daemon is this machine's): no exec of an earlier test falls in the window.
    const clock = () => Date.now() / 1000;
    const since = clock();
    const results = [await sandbox.exec('printf out; printf err >&2'), await sandbox.exec('echo'), await sandbox.exec('exit 3')];
    expect(results.map((r) => [r.exitCode, r.stdout, r.stderr])).toEqual([[0, 'out', 'err'], [0, '\n', ''], [3, '', '']]);
    const until = clock();
    const stream = (await docker.getEvents({ since, until, filters: { container: [sandbox.id] } })) as NodeJS.ReadableStream;
    let text = '';
    for await (const chunk of stream) text += chunk.toString();
    const actions = text.split('\n').filter(Boolean).map((line) => String((JSON.parse(line) as { Action: string }).Action));
    expect(actions.filter((a) => a.startsWith('exec_create:'))).toHaveLength(3);
  });

  it('gives the command the default signal dispositions, not its runner\'s: a writer into a closed pipe ends quietly', async () => {
    // Python ignores SIGPIPE for itself; inherited, `yes` would report a broken pipe instead of dying of it.
    expect(await sandbox.exec('yes | head -1')).toMatchObject({ exitCode: 0, stdout: 'y\n', stderr: '' });
  });

  it('sweeps after a command that forged the runner\'s mark and killed the runner: what it left running is ended all the same', async () => {
    // The mark (its nonce) is in the runner's environment until it starts the command, and its /proc is root's to read: the forger finds nothing.
    const forged = await sandbox.exec(
      'n=$(tr "\\0" "\\n" < /proc/$PPID/environ 2>/dev/null | sed -n "s/^RDH_SWEEP_MARK=//p"); echo "nonce:${n:-none}"; sleep 1000 >/dev/null 2>&1 & printf "\\n%s" "$n" >&2; kill -9 $PPID',
    );
    expect(forged.stdout).toBe('nonce:none\n');
    expect(forged.exitCode).toBe(137);
    expect(await leftovers(sandbox)).toEqual([]);
  });

  it('clears a command that left every pid taken, by restarting the container, and the next command can fork', async () => {
    // Unlike the shell bomb this one never burns out: it takes each pid as it frees, so nothing
    // inside the container can start to kill it. The command returns once the pids cgroup is full.
    await sandbox.writeFile('hog.py', PID_HOG);
    const left = await sandbox.exec('python3 hog.py', { timeoutMs: 30_000 });
    expect(left).toMatchObject({ exitCode: 0, stdout: 'full\n' });
    expect(await leftovers(sandbox)).toEqual([]);
    const next = await sandbox.exec('ls / | grep -c workspace');
    expect(next).toMatchObject({ exitCode: 0, stdout: '1\n' });
  });

  it('ends a 20 GiB allocation as a result (killed or refused), not a hang', async () => {
    const result = await sandbox.exec(`python3 -c "x = b'x' * (20 * 1024**3); print(len(x))"`, { timeoutMs: 60_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).not.toBe(0);
    expect(result.stdout).toBe('');
    const after = await sandbox.exec('echo alive');
    expect(after.stdout).toBe('alive\n');
  });

  it('kills `sleep 600` after a 2 s timeout within a few seconds', async () => {
    const result = await sandbox.exec('sleep 600', { timeoutMs: 2_000 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(result.durationMs).toBeLessThan(8_000);
    const ps = await sandbox.exec('ps -e -o comm= 2>/dev/null || ls /proc | grep -c "^[0-9]"');
    expect(ps.stdout).not.toContain('sleep 600');
  });

  it('caps 100 MB of output at 1 MiB and marks the cut', async () => {
    const result = await sandbox.exec('head -c 100000000 /dev/zero | tr "\\0" "a"; echo tail >&2', { timeoutMs: 60_000 });
    expect(result.truncated).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(result.stdout.startsWith('a'.repeat(1024))).toBe(true);
    expect(result.stdout).toContain(`${TRUNCATION_MARKER}100000000 bytes written, first 1048576 kept]`);
    expect(result.stdout.length).toBeLessThan(1024 ** 2 + 200);
    expect(result.stderr).toBe('tail\n');
  });

  it('reads, writes and lists workspace files, and the sandbox sees them', async () => {
    await sandbox.writeFile('pkg/mod.py', 'print("hi from mod")\n');
    const run = await sandbox.exec('python3 pkg/mod.py && echo made > pkg/out.txt', { cwd: '.' });
    expect(run.stdout).toBe('hi from mod\n');
    expect(await sandbox.readFile('pkg/out.txt')).toBe('made\n');
    expect(await sandbox.listFiles()).toEqual(expect.arrayContaining(['pkg/mod.py', 'pkg/out.txt']));
    expect(await sandbox.listFiles('pkg')).toEqual(['pkg/mod.py', 'pkg/out.txt']);
    const inSub = await sandbox.exec('pwd', { cwd: 'pkg' });
    expect(inSub.stdout).toBe('/workspace/pkg\n');
  });

  it('refuses paths that leave the workspace, including a symlink planted by agent code', async () => {
    await sandbox.exec('ln -sf /etc/passwd leak; ln -sfn / rootlink');
    await expect(sandbox.readFile('leak')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(sandbox.readFile('rootlink/etc/hostname')).rejects.toBeInstanceOf(WorkspacePathError);
    await expect(sandbox.writeFile('../escape.txt', 'x')).rejects.toThrowErrorMatchingInlineSnapshot(
      `[WorkspacePathError: refused workspace path "../escape.txt": it leaves the workspace. Use a path relative to the workspace root.]`,
    );
    await expect(sandbox.readFile('/etc/passwd')).rejects.toThrowErrorMatchingInlineSnapshot(
      `[WorkspacePathError: refused workspace path "/etc/passwd": absolute paths are not allowed. Use a path relative to the workspace root.]`,
    );
  });
});

describe.skipIf(!HAS_DOCKER).each(TRANSPORTS)('detached copies and snapshots (%s transport)', (transport) => {
  it('mounts a copy the sandbox user can write, leaves the original as it was, and copies links without following them', async () => {
    const original = await tempDir('rdh-judged-');
    const judged = await testProvider({ transport }).create({ workspaceDir: original, runId: RUN, purpose: 'judged' });
    await judged.exec('mkdir -p sub && echo v1 > sub/a.txt && ln -s /etc/hostname host-link');
    await judged.dispose();
    const copy = await testProvider({ transport }).create({ workspaceDir: await tempDir('rdh-copy-'), copyFrom: original, runId: RUN, purpose: 'copy' });
    try {
      const wrote = await copy.exec('echo v2 > sub/a.txt && echo new > sub/b.txt && readlink host-link');
      expect([wrote.exitCode, wrote.stdout]).toEqual([0, '/etc/hostname\n']);
      expect(await readFile(path.join(original, 'sub/a.txt'), 'utf8')).toBe('v1\n');
      expect(await copy.listFiles()).toEqual(['host-link', 'sub/a.txt', 'sub/b.txt']);
    } finally {
      await copy.dispose();
    }
  });

  it('snapshots content by path, so a shell write shows and interpreter caches do not', async () => {
    const box = await testProvider({ transport }).create({ workspaceDir: await tempDir('rdh-snap-'), runId: RUN, purpose: 'snapshot' });
    try {
      await box.writeFile('m.py', 'X = 1\n');
      const before = await box.snapshot();
      await box.exec('python3 -c "import py_compile; py_compile.compile(\'m.py\')"; mkdir -p .pytest_cache && echo x > .pytest_cache/v');
      expect(await box.snapshot()).toEqual(before);
      await box.exec("sed -i 's/1/2/' m.py");
      const after = await box.snapshot();
      expect(Object.keys(after)).toEqual(['m.py']);
      expect(after['m.py']).not.toBe(before['m.py']);
    } finally {
      await box.dispose();
    }
  });
});

describe.skipIf(!HAS_DOCKER)('archive transport: the host folder mirrors the volume', () => {
  it('shows what a command made, drops what it deleted, keeps links as links, and never mounts the host folder', async () => {
    const dir = await tempDir('rdh-mirror-');
    await writeFile(path.join(dir, 'seed.txt'), 'seed\n');
    const box = await testProvider({ transport: 'archive' }).create({ workspaceDir: dir, runId: RUN, purpose: 'mirror' });
    try {
      const [info] = await new Docker().listContainers({ filters: { label: [`${SANDBOX_LABELS.purpose}=mirror`, `${SANDBOX_LABELS.run}=${RUN}`] } });
      expect(info!.Mounts.map((m) => [m.Type, m.Destination])).toEqual([['volume', '/workspace']]);
      const ran = await box.exec('cat seed.txt && rm seed.txt && mkdir -p d && echo made > d/new.txt && ln -s /etc/passwd d/leak');
      expect(ran.stdout).toBe('seed\n');
      expect(await readFile(path.join(dir, 'd/new.txt'), 'utf8')).toBe('made\n');
      await expect(readFile(path.join(dir, 'seed.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readlink(path.join(dir, 'd/leak'))).toBe('/etc/passwd');
      await expect(box.readFile('d/leak')).rejects.toBeInstanceOf(WorkspacePathError);
    } finally {
      await box.dispose();
    }
    const { Volumes: left } = await new Docker().listVolumes({ filters: { label: [`${SANDBOX_LABELS.purpose}=mirror`, `${SANDBOX_LABELS.run}=${RUN}`] } });
    expect(left ?? []).toEqual([]);
  });
});

describe.skipIf(!HAS_DOCKER)('archive transport: writes reach the volume together, before the next command', () => {
  it('shows each write in the folder at once, copies the writes since the last command as one tar, and every command sees the latest content', async () => {
    const dir = await tempDir('rdh-batch-');
    const box = await testProvider({ transport: 'archive' }).create({ workspaceDir: dir, runId: RUN, purpose: 'batch' });
    const { Container } = Docker as unknown as { Container: { prototype: { putArchive(...args: unknown[]): Promise<unknown> } } };
    const copies = vi.spyOn(Container.prototype, 'putArchive');
    try {
      await box.writeFile('a.txt', 'one\n');
      await box.writeFile('a.txt', 'two\n');
      await box.writeFile('sub/b.txt', 'b\n');
      expect(await readFile(path.join(dir, 'a.txt'), 'utf8')).toBe('two\n');
      expect(copies).toHaveBeenCalledTimes(0);
      expect((await box.exec('cat a.txt sub/b.txt')).stdout).toBe('two\nb\n');
      expect(copies).toHaveBeenCalledTimes(1);
      await box.writeFile('sub/c.txt', 'c\n');
      await box.writeFile('a.txt', 'three\n');
      expect((await box.exec('cat a.txt sub/b.txt sub/c.txt')).stdout).toBe('three\nb\nc\n');
      expect(copies).toHaveBeenCalledTimes(2);
      // A command with nothing written before it copies nothing in.
      await box.exec('true');
      expect(copies).toHaveBeenCalledTimes(2);
      expect(await readFile(path.join(dir, 'sub/c.txt'), 'utf8')).toBe('c\n');
    } finally {
      copies.mockRestore();
      await box.dispose();
    }
  });
});

async function volumesOf(runId: string): Promise<string[]> {
  const { Volumes } = await new Docker().listVolumes({ filters: { label: [`${SANDBOX_LABELS.run}=${runId}`] } });
  return (Volumes ?? []).map((v) => v.Name);
}

describe.skipIf(!HAS_DOCKER)('sandbox lifecycle', () => {
  it('leaves no container behind after creating and disposing 50 sandboxes', async () => {
    const runId = `${RUN}-fifty`;
    const provider = testProvider();
    const root = await tempDir('rdh-fifty-');
    for (let batch = 0; batch < 5; batch++) {
      const boxes = await Promise.all(
        Array.from({ length: 10 }, (_, i) => provider.create({ workspaceDir: path.join(root, `w${batch}-${i}`), runId })),
      );
      const results = await Promise.all(boxes.map((b) => b.exec('true')));
      expect(results.every((r) => r.exitCode === 0)).toBe(true);
      await Promise.all(boxes.map((b) => b.dispose()));
    }
    expect(await containersOf(runId)).toEqual([]);
    await rm(root, { recursive: true, force: true });
  });

  it.each([
    ['auto', 'removed 2 container(s)\n'],
    ['archive', 'removed 2 container(s) and 2 workspace volume(s)\n'],
  ])('a killed harness process leaves labelled containers that `harness sandbox prune` removes (%s transport)', async (transport, printed) => {
    const runId = `${RUN}-orphans-${transport}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/support/fixtures/orphan-maker.ts', runId, transport], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('READY') && resolve());
        child.once('exit', (code) => reject(new Error(`orphan maker exited early (${code})`)));
      });
      expect(await containersOf(runId)).toHaveLength(2);
      // The live owner protects its containers from an ordinary prune.
      const io0 = bufferIo();
      expect(await runCli(['sandbox', 'prune', '--run', runId], io0)).toBe(0);
      expect(await containersOf(runId)).toHaveLength(2);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      const io = bufferIo();
      expect(await runCli(['sandbox', 'prune', '--run', runId], io)).toBe(0);
      expect(io.stdout()).toBe(printed);
      expect(await containersOf(runId)).toEqual([]);
      expect(await volumesOf(runId)).toEqual([]);
    } finally {
      // Never leave the fixture (or its containers) behind when an assertion above failed.
      child.kill('SIGKILL');
      await runCli(['sandbox', 'prune', '--all', '--run', runId], bufferIo());
    }
  });

  it('names the fix when the image is missing', async () => {
    const provider = new DockerSandboxProvider({ image: 'rdh-sandbox:does-not-exist' });
    await expect(provider.create({ workspaceDir: await tempDir('rdh-x-'), runId: RUN })).rejects.toThrowErrorMatchingInlineSnapshot(
      `[SandboxImageMissingError: sandbox image rdh-sandbox:does-not-exist is not present on the Docker daemon. Run \`harness sandbox build\`.]`,
    );
  });
});

describe('sandbox errors without a daemon', () => {
  it('names the fix when no daemon answers', async () => {
    const provider = new DockerSandboxProvider({ image: 'x', docker: new Docker({ socketPath: '/nonexistent/docker.sock' }) });
    const error = await provider.create({ workspaceDir: await tempDir('rdh-y-'), runId: RUN }).catch((e: Error) => e);
    expect(error).toMatchObject({ code: 'docker_unavailable' });
    expect((error as Error).message).toMatch(/^cannot reach the Docker daemon at .*Start Docker .* or point DOCKER_HOST at a reachable daemon\.$/);
  });

  it('keeps the sandbox test fixture honest', async () => {
    expect(await readFile('tests/support/fixtures/orphan-maker.ts', 'utf8')).toContain('READY');
  });
});
