"""Held-out oracle runner. Runs inside a throwaway grading container, never on the host.

Started by the harness as root with `python3 -I -S -B` (isolated: no script dir, no user
site, no site module, so nothing in the graded tree can be imported into this process, not
even a sitecustomize.py or a .pth file; no bytecode is written). The layout it is given:

    /grade/oracle/   expectations.json + runner.py   (root only, 0700)
    /grade/data/     the data sets the cases query      (read-only for the program)
    /grade/tree/     a scratch copy of the tree graded  (read-only for the program)
    /grade/out/      where report.json is written       (root only, 0700)

Order matters and is the whole point of this file:
  1. take ownership of the layout, so the program's user can read the tree and data and
     nothing else;
  2. load the expectations into memory and delete them from disk, then check that only
     the allowlisted files remain;
  3. run every case as an unprivileged user with its own session, re-checking the
     allowlist before every spawn;
  4. kill every process the program left behind, then write the machine-readable report.

The verdict is that report. The harness never reads a grade from an exit code.
"""

import argparse
import csv
import io
import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

REPORT_VERSION = 1
ORACLE_ALLOWLIST = {"runner.py"}
OUTPUT_CAP = 1024 * 1024


class IntegrityError(Exception):
    """The held-out material is not where (or not only where) it should be."""


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--grade", default="/grade")
    p.add_argument("--uid", type=int, default=1000)
    p.add_argument("--gid", type=int, default=1000)
    p.add_argument("--owner", default=None, help="uid:gid to hand the scratch back to at the end")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--case-timeout", type=float, default=3.0)
    p.add_argument("--deadline", type=float, default=90.0)
    return p.parse_args()


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
            mode = os.stat(full).st_mode
            os.chmod(full, file_mode | (0o111 if mode & 0o100 and file_mode != 0o600 else 0))


def snapshot(root):
    """Every path under root (relative), for comparing against what was staged."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in dirnames + filenames:
            out.add(os.path.relpath(os.path.join(dirpath, name), root))
    return out


class Integrity:
    def __init__(self, oracle_dir, data_dir):
        self.oracle_dir = oracle_dir
        self.data_dir = data_dir
        self.data_staged = snapshot(data_dir)
        self.checks = 0
        self.lock = threading.Lock()

    def check(self):
        with self.lock:
            self.checks += 1
            left = set(os.listdir(self.oracle_dir))
            if left != ORACLE_ALLOWLIST:
                raise IntegrityError(f"oracle dir holds {sorted(left)}, allowlist is {sorted(ORACLE_ALLOWLIST)}")
            now = snapshot(self.data_dir)
            if now != self.data_staged:
                raise IntegrityError(f"data dir changed: {sorted(now ^ self.data_staged)[:5]}")


def capped_run(argv, cwd, env, stdin_text, uid, gid, timeout):
    """Run one program; keep at most OUTPUT_CAP bytes of each stream; kill its session on exit."""
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=env,
            stdin=subprocess.PIPE if stdin_text is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            user=uid, group=gid, extra_groups=[], start_new_session=True, close_fds=True,
        )
    except OSError as exc:
        return {"exit": None, "stdout": b"", "stderr": b"", "timed_out": False,
                "spawn_error": f"{type(exc).__name__}: {exc}", "ms": 0}
    try:
        # Make the program, not this runner, the memory ceiling's first victim.
        with open(f"/proc/{proc.pid}/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass
    if stdin_text is not None:
        try:
            proc.stdin.write(stdin_text.encode())
            proc.stdin.close()
        except OSError:
            pass
    bufs = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    sel = selectors.DefaultSelector()
    for stream in bufs:
        os.set_blocking(stream.fileno(), False)
        sel.register(stream, selectors.EVENT_READ)
    timed_out = False
    deadline = started + timeout
    open_streams = 2
    while open_streams:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        for key, _ in sel.select(remaining):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            buf = bufs[key.fileobj]
            if len(buf) < OUTPUT_CAP + 1:
                buf.extend(chunk[: OUTPUT_CAP + 1 - len(buf)])
    sel.close()
    exit_code = None
    if not timed_out:
        try:
            exit_code = proc.wait(timeout=max(0.05, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    if exit_code is None:
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
    for stream in bufs:
        stream.close()
    return {
        "exit": exit_code, "stdout": bytes(bufs[proc.stdout]), "stderr": bytes(bufs[proc.stderr]),
        "timed_out": timed_out, "spawn_error": None, "ms": int((time.monotonic() - started) * 1000),
    }


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


def parse_rows(text, fmt):
    """Header and rows of a csv or json result, for order-insensitive comparison."""
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text, newline="")))
        if not rows:
            raise ValueError("no header row")
        return rows[0], sorted(json.dumps(r) for r in rows[1:])
    data = json.loads(text)
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise ValueError("not a JSON array of objects")
    header = list(data[0].keys()) if data else None
    return header, sorted(json.dumps(list(r.items())) for r in data)


def output_format(args):
    for i, a in enumerate(args):
        if a == "--format" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--format="):
            return a.split("=", 1)[1]
    return "table"


def judge(case, run):
    """Why the case failed, or None when it passed."""
    exp = case["expect"]
    if run["spawn_error"]:
        return f"could not start the program: {run['spawn_error']}"
    if run["timed_out"]:
        return "timed out"
    if run["exit"] != exp["exit"]:
        return f"exit code {run['exit']}, expected {exp['exit']}"
    if len(run["stdout"]) > OUTPUT_CAP or len(run["stderr"]) > OUTPUT_CAP:
        return "output exceeded the 1 MiB cap"
    try:
        out = run["stdout"].decode("utf-8")
    except UnicodeDecodeError:
        return "stdout is not UTF-8"
    stderr_rule = exp.get("stderr") or ("nonempty" if exp["exit"] != 0 else "any")
    if stderr_rule == "nonempty" and not run["stderr"].strip():
        return "stderr was empty, expected a diagnostic"
    if "stdout" in exp and out != exp["stdout"]:
        return f"stdout differs: got {out[:200]!r}, expected {exp['stdout'][:200]!r}"
    if "rows" in exp:
        fmt = output_format(case["args"])
        try:
            header, rows = parse_rows(out, fmt)
        except (ValueError, csv.Error) as exc:
            return f"stdout is not valid {fmt}: {exc}"
        want_header = exp["rows"]["header"]
        if fmt == "csv" or header is not None:
            if header != want_header:
                return f"header {header}, expected {want_header}"
        if fmt == "csv":
            want = sorted(json.dumps(r) for r in exp["rows"]["rows"])
        else:
            want = sorted(json.dumps(list(zip(want_header, r))) for r in exp["rows"]["rows"])
        if rows != want:
            return f"rows differ: got {len(rows)} row(s), expected {len(want)}; the multisets are not equal"
    return None


def main():
    opts = parse_args()
    oracle_dir = os.path.join(opts.grade, "oracle")
    data_dir = os.path.join(opts.grade, "data")
    tree_dir = os.path.join(opts.grade, "tree")
    out_dir = os.path.join(opts.grade, "out")
    started = time.monotonic()

    # 1. Ownership: held-out material is root's alone; the program may read tree and data.
    os.chown(opts.grade, 0, 0)
    os.chmod(opts.grade, 0o755)
    walk_chown(oracle_dir, 0, 0, 0o700, 0o600)
    walk_chown(out_dir, 0, 0, 0o700, 0o600)
    walk_chown(tree_dir, 0, 0, 0o755, 0o644)
    walk_chown(data_dir, 0, 0, 0o755, 0o644)

    # Compile the delivered package once, here, as root: every case would otherwise compile it
    # again (the tree is read-only to the program). Compiling executes none of its code.
    package = os.path.join(tree_dir, "sqlcsv")
    if os.path.isdir(package) and not os.path.islink(package):
        import compileall
        compileall.compile_dir(package, maxlevels=4, quiet=2, workers=1)
        walk_chown(package, 0, 0, 0o755, 0o644)

    # 2. Load the expectations, then delete them before any delivered program exists.
    exp_path = os.path.join(oracle_dir, "expectations.json")
    with open(exp_path, encoding="utf-8") as f:
        bundle = json.load(f)
    os.remove(exp_path)
    integrity = Integrity(oracle_dir, data_dir)
    report = {
        "version": REPORT_VERSION, "spec": bundle["spec"], "cases": [], "requirements": {},
        "integrity": {"expectations_deleted": not os.path.exists(exp_path), "checks": 0, "violation": None},
    }
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0",
    }
    abort = threading.Event()
    deadline = started + opts.deadline

    def run_one(case):
        if abort.is_set():
            return {"id": case["id"], "req": case["req"], "pass": False, "reason": "not run: grading aborted", "exit": None, "ms": 0}
        if time.monotonic() > deadline:
            return {"id": case["id"], "req": case["req"], "pass": False, "reason": "not run: grading deadline passed", "exit": None, "ms": 0}
        try:
            integrity.check()
        except IntegrityError as exc:
            abort.set()
            report["integrity"]["violation"] = str(exc)
            return {"id": case["id"], "req": case["req"], "pass": False, "reason": "not run: integrity violation", "exit": None, "ms": 0}
        data = os.path.join(data_dir, case["data"]) if case.get("data") else data_dir
        args = [a.replace("{data}", data) for a in case["args"]]
        run = capped_run([sys.executable, "-m", "sqlcsv", *args], tree_dir, env, case.get("stdin"),
                         opts.uid, opts.gid, opts.case_timeout)
        reason = judge(case, run)
        return {"id": case["id"], "req": case["req"], "pass": reason is None, "reason": reason, "exit": run["exit"], "ms": run["ms"]}

    # 3. Run the cases.
    with ThreadPoolExecutor(max_workers=max(1, opts.workers)) as pool:
        report["cases"] = list(pool.map(run_one, bundle["cases"]))

    # 4. Nothing the program started may outlive the grading (tini, PID 1, is exempt).
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
