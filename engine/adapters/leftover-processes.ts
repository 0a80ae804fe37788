import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import { SandboxProcessesLeftError } from '../base/errors.js';
import { CappedSink } from './internal/output-cap.js';

/**
 * Run in the container as the sandbox user after every command: SIGKILL every process it may
 * signal (the kernel spares PID 1 and the caller), then name what is still there.
 *
 * Python, because the image has no `ps`, and because it forks nothing: a shell loop would need
 * a pid per check, and after a fork bomb there is none. Every process but PID 1 and this one
 * counts, whoever /proc says owns it (one that made itself non-dumpable shows as root's, and
 * a uid filter would let it hide; nothing else ever runs in the container). Zombies count too:
 * they hold a pid until the reaper takes them.
 */
const SWEEP = [
  'import json, os, signal',
  'try:',
  '    os.kill(-1, signal.SIGKILL)',
  'except OSError:',
  '    pass',
  'me = str(os.getpid())',
  'left = []',
  'for pid in os.listdir("/proc"):',
  '    if not pid.isdigit() or pid in ("1", me):',
  '        continue',
  '    try:',
  '        with open("/proc/" + pid + "/stat") as f:',
  '            stat = f.read()',
  '    except OSError:',
  '        continue',
  '    left.append(pid + " " + stat[stat.rfind(")") + 2] + " " + stat[stat.find("(") + 1 : stat.rfind(")")])',
  'print("rdh-sweep " + json.dumps(left))',
].join('\n');
const MARK = 'rdh-sweep ';

/**
 * The command and its sweep in one exec: a Docker exec costs about 0.1 CPU-second of the
 * daemon's, runc's and the shim's work (measured on the 2-core CI machine), as much as the
 * command itself for most checks, and a separate sweep doubled it. This runner starts the
 * command, waits for it, SIGKILLs every other process until none is left (as {@link SWEEP}
 * does, forking nothing), and only then ends stderr with a mark naming the exec's nonce.
 *
 * The mark must not be forgeable by the command, which runs as the same user: the mark, nonce
 * and all, reaches the runner in its environment (made in one place, {@link sweptCommand}),
 * leaves it before the command starts, and the runner makes itself non-dumpable first, so its
 * /proc environ and memory are root's to read and the sandbox has no capabilities. The runner
 * puts the mark on a line of its own. A command that kills the runner (`kill -9 -1` spares only PID 1 and the
 * caller) ends without the mark, and so does one whose stderr overran its cap: the host then
 * sweeps as before ({@link clearLeftovers}). Such a command's exit code is the runner's (137).
 *
 * SIGPIPE and SIGXFSZ, which Python ignores for itself, are the default again in the command.
 */
const RUNNER = [
  'import os, signal, sys, time',
  'mark = os.environ.pop("RDH_SWEEP_MARK", "")',
  'try:',
  '    import ctypes',
  '    hidden = ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0',
  'except Exception:',
  '    hidden = False',
  'pid = os.posix_spawnp("sh", ["sh", "-c", sys.argv[1]], os.environ, setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))',
  'code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])',
  'me = str(os.getpid())',
  'deadline = time.monotonic() + float(sys.argv[2])',
  'while True:',
  '    try:',
  '        os.kill(-1, signal.SIGKILL)',
  '    except OSError:',
  '        pass',
  '    left = [p for p in os.listdir("/proc") if p.isdigit() and p not in ("1", me)]',
  '    if not left or time.monotonic() >= deadline:',
  '        break',
  '    time.sleep(0.02)',
  'if hidden and mark and not left:',
  '    os.write(2, ("\\n" + mark).encode())',
  'sys.exit(code if code >= 0 else 128 - code)',
].join('\n');

/** How long the runner itself sweeps before it leaves the rest (a fork bomb, say) to {@link clearLeftovers}. */
const RUNNER_SWEEP_S = 2;

/** One command as the runner runs it: what to exec, and how to read the mark off its stderr. */
export interface SweptCommand {
  cmd: string[];
  /** Added to the exec's environment; the runner removes it before the command starts. */
  env: string;
  /** The mark the runner appends to stderr when nothing of the command is left. */
  mark: string;
}

export function sweptCommand(command: string): SweptCommand {
  const mark = `rdh-swept ${randomBytes(16).toString('hex')} clean`;
  return {
    cmd: ['python3', '-S', '-c', RUNNER, command, String(RUNNER_SWEEP_S)],
    env: `RDH_SWEEP_MARK=${mark}`,
    mark: `\n${mark}`,
  };
}

/** How often a sweep is repeated while killed processes are still dying. */
const POLL_MS = 50;

/** What one sweep saw: what is still there (`pid state name`), or why it could not look. */
export type Sweep = { left: string[] } | { blocked: string };

export interface LeftoverOptions {
  /** The sandbox user, `uid:gid`. */
  user: string;
  /** How long each stage (sweeping, then sweeping a restarted container) may take. */
  boundMs: number;
}

/**
 * Returns once no process but PID 1 is left in the container, so nothing of the command that
 * just ended is still running, writing or holding pids when the next one starts. Sweeps until
 * clean; when the sweep cannot run (no free pid, e.g. a fork bomb; the container stopped) or
 * the processes outlive the bound, kills the container and starts it again (the workspace
 * survives), and sweeps that. Still not clean: {@link SandboxProcessesLeftError}, never a
 * next command in a dirty container.
 */
export async function clearLeftovers(container: Docker.Container, id: string, options: LeftoverOptions): Promise<void> {
  const first = await sweepUntilClean(container, options);
  if (clean(first)) return;
  const refused = await restart(container, options.boundMs);
  const again: Sweep = refused ? { blocked: refused } : await sweepUntilClean(container, options);
  if (clean(again)) return;
  throw new SandboxProcessesLeftError(id, 'left' in again ? again.left : [], 'blocked' in again ? again.blocked : null);
}

const clean = (seen: Sweep) => 'left' in seen && seen.left.length === 0;

/** Sweeps every {@link POLL_MS} while processes are still dying; gives up at once when a sweep cannot run. */
async function sweepUntilClean(container: Docker.Container, options: LeftoverOptions): Promise<Sweep> {
  const deadline = performance.now() + options.boundMs;
  for (;;) {
    const seen = await sweepOnce(container, options.user, deadline - performance.now());
    // Blocked: nothing else in the container can kill, so waiting only lets a bomb keep every pid.
    if ('blocked' in seen || seen.left.length === 0) return seen;
    if (performance.now() + POLL_MS >= deadline) return seen;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * One sweep, awaited to its end or to `boundMs`. A sweep that does not answer in time is
 * reported blocked, and the caller kills the container: only that guarantees it cannot start
 * later and kill the next command (a detached kill used to do exactly that under load).
 */
async function sweepOnce(container: Docker.Container, user: string, boundMs: number): Promise<Sweep> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Sweep>((resolve) => {
    timer = setTimeout(() => resolve({ blocked: `no answer within ${Math.round(boundMs)} ms` }), Math.max(0, boundMs));
  });
  const run = runSweep(container, user);
  try {
    return await Promise.race([run, late]);
  } finally {
    clearTimeout(timer);
    run.catch(() => undefined);
  }
}

async function runSweep(container: Docker.Container, user: string): Promise<Sweep> {
  const out = new CappedSink(64 * 1024);
  const err = new CappedSink(64 * 1024);
  try {
    const exec = await container.exec({ Cmd: ['python3', '-S', '-c', SWEEP], User: user, AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    const ended = new Promise<void>((resolve) => {
      stream.once('end', resolve);
      stream.once('close', resolve);
      stream.once('error', () => resolve());
    });
    container.modem.demuxStream(stream, out, err);
    await ended;
  } catch (error) {
    // The daemon answered with a refusal (409: the container is not running): a reason to
    // restart. A daemon that did not answer at all is no sandbox's business; it goes up.
    if (typeof (error as { statusCode?: unknown }).statusCode === 'number') return { blocked: (error as Error).message };
    throw error;
  }
  const line = out.text().split('\n').find((l) => l.startsWith(MARK));
  // Without the line the sweep never ran: runc says why (`read init-p: connection reset by peer`
  // when the pids cgroup is full) on the exec's own stream.
  if (!line) return { blocked: `${out.text()}${err.text()}`.trim().slice(0, 300) || 'the sweep printed nothing' };
  return { left: JSON.parse(line.slice(MARK.length)) as string[] };
}

/**
 * Kills the container and starts it again, waiting for it to be down in between: Docker may
 * still report it running just after the kill, and a start then is a no-op (304) that leaves
 * the next command to run in a dying container. Returns why the daemon refused, or null.
 */
async function restart(container: Docker.Container, boundMs: number): Promise<string | null> {
  const deadline = performance.now() + boundMs;
  try {
    // 409: it is not running (stopped by the memory ceiling, say), which is what the kill is for.
    await container.kill({ signal: 'SIGKILL' }).catch(unless(409));
    while ((await container.inspect()).State.Running) {
      if (performance.now() >= deadline) return `container still running ${boundMs} ms after it was killed`;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    // 304: already started again; the sweep that follows decides whether it is usable.
    await container.start().catch(unless(304));
    return null;
  } catch (error) {
    // A refusal is this sandbox's failure; a daemon that did not answer goes up as it is.
    if (typeof (error as { statusCode?: unknown }).statusCode === 'number') return (error as Error).message;
    throw error;
  }
}

/** A rejection handler that lets one status through as success. */
function unless(status: number): (error: { statusCode?: number }) => void {
  return (error) => {
    if (error.statusCode !== status) throw error;
  };
}
