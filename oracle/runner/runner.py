"""Held-out oracle runner, shared by every task. Runs inside a throwaway grading container,
never on the host. What a task adds is its judge (oracle/<task>/judge.py, with any modules it
imports): `judge(case, run)` says why one case's run failed, or None. The harness stages it
beside this file and names it with --judge (and --judge-module); the package each case runs
with `python3 -m` comes with the expectations (`module`).

Started by the harness as root with `python3 -I -S -B` (isolated: no script dir, no user
site, no site module, so nothing in the graded tree can be imported into this process, not
even a sitecustomize.py or a .pth file; no bytecode is written). The layout it is given:

    /grade/oracle/   expectations.json, runner.py, fork_server.py, the judge and its modules
                     (root only, 0700)
    /grade/data/     the data sets the cases query      (read-only for the programs)
    /grade/tree/     a scratch copy of the tree graded  (read-only for the programs; the
                     harness staged it without any link that leaves it)
    /grade/out/      where report.json is written       (root only, 0700)

Order matters and is the whole point of this file:
  1. take ownership of the layout, so programs can read the tree and data and nothing else,
     and close the shared scratch places (/tmp, /dev/shm) to them;
  2. start fork_server.py, a fresh interpreter that will start every program, before
     anything held out is read: no process forked from it can hold the expectations;
  3. load the expectations into memory and delete them from disk, then check that only
     the allowlisted files remain;
  4. byte-compile the tree's package as a user of its own (never root, never before the
     expectations are gone), within a time and memory limit; a failure is noted, not fatal;
  5. run every case as a uid of its own, in its own session, re-checking the allowlist
     before every start, and kill every process of that uid when the case ends; then re-run
     alone each case that ran out of wall-clock time (see rerun below);
  6. kill every process left, then write the machine-readable report.

Load never fails a case: a case that runs out of its wall-clock limit (3 s) among the others
is run again once, alone, after all the cases, with a CPU-time limit of the same seconds
(RLIMIT_CPU) and a wider wall-clock backstop; time spent idle (sleeping, blocked) counts
against it, time spent waiting for a CPU does not. A case fails on time only when it runs out
of CPU time, or runs out of time again alone. Each re-run is recorded in its case's row.

Nothing a tree does can stop the report from being written: each case has its own time
limit, so slowness is charged to that case alone, and there is no whole-grading deadline
(tests/harness/grading/per-case-limits.test.ts runs this file with its clocks pushed a day
ahead before every program, and fails if any case is charged for it).

The verdict is that report. The harness never reads a grade from an exit code. Failure
reasons name the kind of difference only, never the expected output or the case's
arguments: reports are published.
"""

import argparse
import importlib.util
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

REPORT_VERSION = 2
RUNNER_FILES = {"runner.py", "fork_server.py"}
OUTPUT_CAP = 1024 * 1024
REVEAL_CAP = 8192
COMPILE_TIMEOUT = 10.0
# Per program: address space, processes of its uid, open files, no core files, no queues.
CASE_LIMITS = {"as": 512 << 20, "nproc": 32, "nofile": 256, "core": 0, "msgqueue": 0}
# One file at a time, so a file the compiler cannot digest costs that file only; os.walk does
# not follow links, so a link loop in the tree cannot make it recurse.
COMPILE_SOURCE = """
import os, py_compile, sys
bad = 0
for root, dirs, files in os.walk(sys.argv[1]):
    dirs[:] = sorted(d for d in dirs if d != "__pycache__")
    for name in sorted(files):
        if name.endswith(".py"):
            try:
                py_compile.compile(os.path.join(root, name), doraise=True)
            except BaseException:
                bad += 1
sys.exit(1 if bad else 0)
"""


class IntegrityError(Exception):
    """The held-out material is not where (or not only where) it should be."""


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--grade", default="/grade")
    p.add_argument("--uid-base", type=int, default=200000,
                   help="the compile step runs as this uid, case i as uid-base + 1 + i")
    p.add_argument("--owner", default=None, help="uid:gid to hand the scratch back to at the end")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--case-timeout", type=float, default=3.0)
    p.add_argument("--rerun-timeout", type=float, default=None,
                   help="backstop wall-clock limit of a timed-out case's re-run alone (default 20 x case timeout)")
    p.add_argument("--cpu-limit", type=int, default=None,
                   help="CPU seconds a re-run alone may use (default: the case timeout, rounded up)")
    p.add_argument("--mode", choices=("fork", "exec"), default="fork")
    p.add_argument("--reveal", action="store_true",
                   help="keep the programs' output of failing cases for the harness to diff")
    p.add_argument("--judge", default="judge.py", help="the task's judge, a file in the oracle dir")
    p.add_argument("--judge-module", action="append", default=[],
                   help="a module the judge imports, a file in the oracle dir (repeatable)")
    return p.parse_args()


def plain_name(name):
    """A file name of the oracle dir itself: no path, no dot-file, a .py module."""
    if os.path.basename(name) != name or name.startswith(".") or not name.endswith(".py"):
        raise SystemExit(f"runner: {name!r} is not a module file name of the oracle dir")
    return name


def run_failure(run):
    """Why a run failed whatever its task expects, or None when the judge must decide: the
    program never started, ran out of time, was killed by a signal, or wrote past the cap. One
    definition for every task, so a reason (and the harness's count of timed-out cases) means
    the same in each; a judge sees only runs that exited with a status and within the cap."""
    if run["spawn_error"]:
        return "the program could not be started"
    if run.get("out_of_cpu"):
        return "ran out of CPU time"
    if run["timed_out"]:
        return "timed out"
    if run["exit"] is None:
        return "killed by a signal"
    if len(run["stdout"]) > OUTPUT_CAP or len(run["stderr"]) > OUTPUT_CAP:
        return "output exceeded the 1 MiB cap"
    return None


def load_judge(oracle_dir, name):
    """The task's judge function. The oracle dir (root only) is put on the path for the
    judge's own modules; nothing of the graded tree is importable from this process."""
    sys.path.insert(0, oracle_dir)
    spec = importlib.util.spec_from_file_location("task_judge", os.path.join(oracle_dir, name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.judge


def walk_chown(root, uid, gid, dir_mode, file_mode):
    """Own and chmod a tree without following symlinks the graded tree may have planted."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        os.chown(dirpath, uid, gid, follow_symlinks=False)
        os.chmod(dirpath, dir_mode)
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            os.chown(full, uid, gid, follow_symlinks=False)
            if os.path.islink(full) or os.path.isdir(full):
                continue
            mode = os.lstat(full).st_mode
            os.chmod(full, file_mode | (0o111 if mode & 0o100 and file_mode != 0o600 else 0))


def snapshot(root):
    """Every path under root (relative), for comparing against what was staged."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            out.add(os.path.relpath(os.path.join(dirpath, name), root))
    return out


class Integrity:
    def __init__(self, oracle_dir, data_dir, allowlist):
        self.oracle_dir = oracle_dir
        self.data_dir = data_dir
        self.allowlist = allowlist
        self.data_staged = snapshot(data_dir)
        self.checks = 0
        self.lock = threading.Lock()

    def check(self):
        with self.lock:
            self.checks += 1
            left = set(os.listdir(self.oracle_dir))
            if left != self.allowlist:
                raise IntegrityError(f"oracle dir holds {sorted(left)}, allowlist is {sorted(self.allowlist)}")
            now = snapshot(self.data_dir)
            if now != self.data_staged:
                raise IntegrityError(f"data dir changed: {sorted(now ^ self.data_staged)[:5]}")


def processes_of(uid, states=None):
    """Pids of live processes whose real or effective uid is `uid` (and, given a list, their
    one-letter states appended to `states`)."""
    found = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/status") as f:
                status = f.read()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith("State:"):
                state = line.split()[1]
                if "Z" in state:
                    break
            if line.startswith("Uid:"):
                real, effective = line.split()[1:3]
                if uid in (int(real), int(effective)):
                    found.append(int(p))
                    if states is not None:
                        states.append(state)
                break
    return found


def kill_everything_else():
    """SIGKILL every process but this one and init, until none is left: a process forking at
    the moment of one kill(-1) can escape it, and nothing may outlive the grading to touch the
    report once the scratch is handed back."""
    me = os.getpid()
    for _ in range(50):
        try:
            os.kill(-1, signal.SIGKILL)
        except OSError:
            pass
        time.sleep(0.02)
        others = [p for p in os.listdir("/proc") if p.isdigit() and int(p) not in (1, me)]
        alive = []
        for p in others:
            try:
                with open(f"/proc/{p}/stat") as f:
                    if f.read().split(") ", 1)[1][0] != "Z":
                        alive.append(p)
            except OSError:
                pass
        if not alive:
            return
    raise IntegrityError("processes of the graded program survived repeated SIGKILL")


class Launcher:
    """The runner's side of fork_server.py: one socket per worker, one program at a time each."""

    def __init__(self, workers, env):
        self.free = []
        self.lock = threading.Lock()
        ours, theirs = [], []
        for _ in range(workers):
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            ours.append(a)
            theirs.append(b)
        here = os.path.dirname(os.path.abspath(__file__))
        self.server = subprocess.Popen(
            [sys.executable, os.path.join(here, "fork_server.py"), *[str(s.fileno()) for s in theirs]],
            pass_fds=[s.fileno() for s in theirs], env=env, cwd="/",
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        )
        for s in theirs:
            s.close()
        ready = json.loads(ours[0].recv(4096) or b"{}")
        if not ready.get("ready"):
            raise RuntimeError("the fork server did not start")
        self.free = ours

    def take(self):
        with self.lock:
            return self.free.pop()

    def give(self, sock):
        with self.lock:
            self.free.append(sock)

    def close(self):
        for s in self.free:
            s.close()
        try:
            self.server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.server.kill()


class Replies:
    """The fork server's answers on one socket: {"pid"} when forked, {"pid", "status"} when reaped."""

    def __init__(self, sock):
        self.sock = sock
        self.forked = []
        self.statuses = {}
        self.cpu_ms = {}
        self.error = None

    def read(self):
        raw = self.sock.recv(4096)
        reply = json.loads(raw) if raw else {"error": "the fork server is gone"}
        if "error" in reply:
            self.error = reply["error"]
        elif "status" in reply:
            self.statuses[reply["pid"]] = reply["status"]
            self.cpu_ms[reply["pid"]] = reply.get("cpu_ms")
        else:
            self.forked.append(reply["pid"])

    def wait(self, predicate, seconds):
        """Read replies until predicate() holds; False if it did not within `seconds`."""
        end = time.monotonic() + seconds
        while not predicate() and self.error is None:
            remaining = end - time.monotonic()
            if remaining <= 0 or not select.select([self.sock], [], [], remaining)[0]:
                return False
            self.read()
        return predicate()


def end_uid(replies, uid):
    """Kill every process of `uid`, through the fork server (kill(-1) as that uid, which no
    fork escapes), until /proc shows none left. A uid is one case's alone."""
    for _ in range(20):
        # Only a process of uid can make another: none now means none ever again.
        if not processes_of(uid):
            return True
        sent = len(replies.forked)
        replies.sock.send(json.dumps({"mode": "kill", "uid": uid}).encode())
        if not replies.wait(lambda: len(replies.forked) > sent, 5):
            return False
        killer = replies.forked[sent]
        replies.wait(lambda: killer in replies.statuses, 5)
    return not processes_of(uid)


# How often a re-run alone looks at its program's processes, to tell waiting for a CPU from idling.
IDLE_POLL = 0.25


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def sample(uid, ticks):
    """Whether a process of `uid` is running or waiting for a CPU (R) or in uninterruptible I/O
    (D); records each one's CPU ticks so far in `ticks` (pid -> user + system ticks)."""
    states = []
    busy = False
    for pid in processes_of(uid, states):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        busy = busy or fields[0] in ("R", "D")
        ticks[pid] = max(ticks.get(pid, 0), int(fields[11]) + int(fields[12]))
    return busy


def run_program(launcher, request, stdin_text, timeout, idle_limit=None):
    """Start one program through the fork server; keep at most OUTPUT_CAP bytes of each
    stream; kill everything of its uid when it ends or its time is up.

    With `idle_limit` (a re-run alone), `timeout` is only a far backstop: the run times out
    once its processes have spent `idle_limit` seconds neither running nor waiting for a CPU
    (sleeping, blocked), while the CPU-time limit stops a busy one: RLIMIT_CPU for each process,
    and the CPU time of all the processes of its uid together (sampled), for one that forks.
    Time spent waiting for a CPU another program holds is never charged."""
    started = time.monotonic()
    sock = launcher.take()
    replies = Replies(sock)
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    # The cases hold small queries: written whole before the start, never blocking.
    data = (stdin_text or "").encode()[:60000]
    if data:
        os.write(in_w, data)
    os.close(in_w)
    try:
        socket.send_fds(sock, [json.dumps(request).encode()], [in_r, out_w, err_w])
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    bufs = {out_r: bytearray(), err_r: bytearray()}
    open_fds = set(bufs)
    for fd in bufs:
        os.set_blocking(fd, False)
    deadline = started + timeout
    timed_out = False
    idle, polled = 0.0, time.monotonic()
    ticks, uid_cpu_out = {}, False
    cpu_limit = request.get("limits", {}).get("cpu")
    case_pid = lambda: replies.forked[0] if replies.forked else None  # noqa: E731
    finished = lambda: case_pid() is not None and case_pid() in replies.statuses  # noqa: E731
    try:
        while not finished() and replies.error is None:
            now = time.monotonic()
            remaining = deadline - now
            if idle_limit is not None and now - polled >= IDLE_POLL:
                idle = 0.0 if sample(request["uid"], ticks) else idle + (now - polled)
                polled = now
                uid_cpu_out = bool(cpu_limit) and sum(ticks.values()) >= cpu_limit * CLOCK_TICKS
                if uid_cpu_out:
                    break
            if remaining <= 0 or (idle_limit is not None and idle >= idle_limit):
                timed_out = True
                break
            wait = remaining if idle_limit is None else min(remaining, IDLE_POLL)
            ready = select.select([sock, *open_fds], [], [], wait)[0]
            if sock in ready:
                replies.read()
            for fd in ready:
                if fd is not sock and drain(fd, bufs[fd]):
                    open_fds.discard(fd)
        if replies.error is None:
            replies.wait(lambda: case_pid() is not None, 5)
            end_uid(replies, request["uid"])
            replies.wait(finished, 5)
        # What the program wrote before it died is in the pipes; read it, bounded in time,
        # since nothing of its uid is left to hold a pipe open (or, if something is, we stop).
        end = time.monotonic() + 1.0
        while open_fds and time.monotonic() < end:
            for fd in select.select(list(open_fds), [], [], max(0.0, end - time.monotonic()))[0]:
                if drain(fd, bufs[fd]):
                    open_fds.discard(fd)
    finally:
        os.close(out_r)
        os.close(err_r)
        launcher.give(sock)
    status = replies.statuses.get(case_pid()) if case_pid() is not None else None
    exit_code = None
    if status is not None and not timed_out:
        exit_code = os.waitstatus_to_exitcode(status)
        if exit_code < 0:
            exit_code = None  # killed by a signal
    cpu_ms = replies.cpu_ms.get(case_pid()) if case_pid() is not None else None
    if ticks:
        cpu_ms = max(cpu_ms or 0, int(sum(ticks.values()) * 1000 / CLOCK_TICKS))
    # SIGXCPU comes from RLIMIT_CPU alone; the SIGKILL a second later only to a program that ignored
    # it (rusage undercounts the scheduler's own CPU time on some machines, so the bar is loose).
    signalled = status is not None and os.WIFSIGNALED(status) and not timed_out
    out_of_cpu = uid_cpu_out or bool(cpu_limit and signalled and (
        os.WTERMSIG(status) == signal.SIGXCPU or (os.WTERMSIG(status) == signal.SIGKILL and (cpu_ms or 0) >= cpu_limit * 800)))
    return {
        "exit": exit_code, "stdout": bytes(bufs[out_r]), "stderr": bytes(bufs[err_r]),
        "timed_out": timed_out, "spawn_error": replies.error, "ms": int((time.monotonic() - started) * 1000),
        "cpu_ms": cpu_ms, "out_of_cpu": out_of_cpu,
    }


def drain(fd, buf):
    """Read what is there (a bounded amount, so a flood cannot starve the deadline check);
    True at end of stream. Keeps at most OUTPUT_CAP + 1 bytes."""
    for _ in range(16):
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return False
        if not chunk:
            return True
        if len(buf) < OUTPUT_CAP + 1:
            buf.extend(chunk[: OUTPUT_CAP + 1 - len(buf)])
    return False


# -- judging -------------------------------------------------------------------------------
#
# Reasons are a closed set of templates holding only numbers: never the expected output,
# never the case's arguments, never the program's output.

# -- the grading ---------------------------------------------------------------------------

def lock_down(grade, uid_base):
    os.chown(grade, 0, 0)
    os.chmod(grade, 0o755)
    walk_chown(os.path.join(grade, "oracle"), 0, 0, 0o700, 0o600)
    walk_chown(os.path.join(grade, "out"), 0, 0, 0o700, 0o600)
    walk_chown(os.path.join(grade, "tree"), 0, 0, 0o755, 0o644)
    walk_chown(os.path.join(grade, "data"), 0, 0, 0o755, 0o644)
    # Shared scratch places would let one case leave something for another.
    for shared in ("/tmp", "/dev/shm", "/dev/mqueue"):
        try:
            os.chmod(shared, 0o711)
        except OSError:
            pass


def case_env(home):
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "TMPDIR": home,
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
    }


def with_home(uid, fn):
    """Give a program a private, empty home (its only writable place); remove it after."""
    home = f"/tmp/u{uid}"
    os.mkdir(home, 0o700)
    os.chown(home, uid, uid)
    try:
        return fn(home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def compile_tree(launcher, tree_dir, uid, module):
    """Byte-compile the package beside its sources, so that no case compiles it again.

    Only after the expectations are gone, and as a uid of its own that owns the tree for
    the while: root never compiles (or reads) a file of the tree, and a file that exhausts
    the compiler's time or memory costs this step only. The tree is root's again after."""
    package = os.path.join(tree_dir, module)
    if not os.path.isdir(package) or os.path.islink(package):
        return {"ok": False, "ms": 0, "note": "no package to compile"}
    walk_chown(tree_dir, uid, uid, 0o755, 0o644)

    def go(home):
        request = {
            "mode": "exec", "uid": uid, "gid": uid, "cwd": tree_dir, "env": case_env(home),
            "argv": [sys.executable, "-I", "-S", "-c", COMPILE_SOURCE, package],
            "limits": CASE_LIMITS,
        }
        return run_program(launcher, request, None, COMPILE_TIMEOUT)

    try:
        run = with_home(uid, go)
    finally:
        walk_chown(tree_dir, 0, 0, 0o755, 0o644)
    if run["timed_out"]:
        note = "timed out"
    elif run["exit"] != 0:
        note = "some files did not compile" if run["exit"] == 1 else "the compiler failed"
    else:
        note = None
    return {"ok": note is None, "ms": run["ms"], "note": note}


def main():
    opts = parse_args()
    oracle_dir = os.path.join(opts.grade, "oracle")
    data_dir = os.path.join(opts.grade, "data")
    tree_dir = os.path.join(opts.grade, "tree")
    out_dir = os.path.join(opts.grade, "out")
    started = time.monotonic()

    # 1. Ownership and the shared places.
    lock_down(opts.grade, opts.uid_base)

    # 2. The fork server starts before anything held out is read; then the task's judge is
    #    loaded (code of the oracle, no expectations in it).
    launcher = Launcher(max(1, opts.workers), case_env("/tmp"))
    judge_files = [plain_name(opts.judge)] + [plain_name(m) for m in opts.judge_module]
    judge = load_judge(oracle_dir, judge_files[0])

    # 3. Load the expectations, then delete them before any program exists.
    exp_path = os.path.join(oracle_dir, "expectations.json")
    with open(exp_path, encoding="utf-8") as f:
        bundle = json.load(f)
    os.remove(exp_path)
    module = bundle["module"]
    integrity = Integrity(oracle_dir, data_dir, RUNNER_FILES | set(judge_files))
    report = {
        "version": REPORT_VERSION, "spec": bundle["spec"], "mode": opts.mode, "cases": [],
        "requirements": {}, "compile": None, "revealed": {} if opts.reveal else None,
        "integrity": {"expectations_deleted": not os.path.exists(exp_path), "checks": 0, "violation": None},
    }
    abort = threading.Event()

    # 4. Compile, as a user of its own.
    try:
        integrity.check()
        report["compile"] = compile_tree(launcher, tree_dir, opts.uid_base, module)
    except IntegrityError as exc:
        abort.set()
        report["integrity"]["violation"] = str(exc)

    # 5. The cases, each as a uid of its own.
    rerun_timeout = opts.rerun_timeout or 20 * opts.case_timeout
    cpu_limit = opts.cpu_limit or max(1, -int(-opts.case_timeout // 1))
    timed_out = set()

    def run_one(item, alone=False):
        index, case = item
        row = {"id": case["id"], "req": case["req"], "pass": False, "reason": None, "exit": None, "ms": 0,
               "cpu_ms": None, "rerun": None}
        if abort.is_set():
            row["reason"] = "not run: grading aborted"
            return row
        try:
            integrity.check()
        except IntegrityError as exc:
            abort.set()
            report["integrity"]["violation"] = str(exc)
            row["reason"] = "not run: integrity violation"
            return row
        uid = opts.uid_base + 1 + index
        data = os.path.join(data_dir, case["data"]) if case.get("data") else data_dir
        args = [a.replace("{data}", data) for a in case["args"]]

        def go(home):
            limits = {**CASE_LIMITS, "cpu": cpu_limit} if alone else CASE_LIMITS
            request = {"mode": opts.mode, "uid": uid, "gid": uid, "cwd": tree_dir, "env": case_env(home),
                       "module": module, "args": args, "limits": limits}
            if alone:
                return run_program(launcher, request, case.get("stdin"), rerun_timeout, idle_limit=opts.case_timeout)
            return run_program(launcher, request, case.get("stdin"), opts.case_timeout)

        run = with_home(uid, go)
        if run["timed_out"] and not alone:
            timed_out.add(index)
        reason = run_failure(run) or judge(case, run)
        if alone and run["timed_out"]:
            reason = "timed out, also when run alone"
        row.update({"pass": reason is None, "reason": reason, "exit": run["exit"], "ms": run["ms"], "cpu_ms": run["cpu_ms"]})
        if opts.reveal and reason is not None:
            report["revealed"][case["id"]] = {
                "stdout": run["stdout"][:REVEAL_CAP].decode("utf-8", "replace"),
                "stderr": run["stderr"][:REVEAL_CAP].decode("utf-8", "replace"),
            }
        return row

    with ThreadPoolExecutor(max_workers=max(1, opts.workers)) as pool:
        report["cases"] = list(pool.map(run_one, enumerate(bundle["cases"])))
    # Re-runs, one at a time once every other case is done: the machine's load may have starved a
    # correct program of its 3 s, and it must not cost the case. The first run is kept in the record.
    for index in sorted(timed_out):
        first = report["cases"][index]
        row = run_one((index, bundle["cases"][index]), alone=True)
        row["rerun"] = {"first_ms": first["ms"], "first_reason": first["reason"], "ms": row["ms"], "cpu_ms": row["cpu_ms"],
                        "cpu_limit_s": cpu_limit, "outcome": "passed" if row["pass"] else row["reason"]}
        report["cases"][index] = row
    launcher.close()

    # 6. Nothing the programs started may outlive the grading (tini, PID 1, is exempt).
    try:
        kill_everything_else()
        integrity.check()
    except IntegrityError as exc:
        report["integrity"]["violation"] = report["integrity"]["violation"] or str(exc)
    report["integrity"]["checks"] = integrity.checks

    for req in bundle["requirements"]:
        mine = [c for c in report["cases"] if c["req"] == req]
        passed = sum(1 for c in mine if c["pass"])
        report["requirements"][req] = {"pass": bool(mine) and passed == len(mine), "passed": passed, "total": len(mine)}
    report["elapsed_ms"] = int((time.monotonic() - started) * 1000)

    tmp = os.path.join(out_dir, "report.json.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f)
    os.rename(tmp, os.path.join(out_dir, "report.json"))

    if opts.owner:
        uid, gid = (int(x) for x in opts.owner.split(":"))
        walk_chown(opts.grade, uid, gid, 0o755, 0o644)


if __name__ == "__main__":
    main()
