"""Starts every graded program for runner.py, each case as its own user. Runs inside the
throwaway grading container, never on the host.

runner.py starts this file as a fresh interpreter (`python3 fork_server.py FD...`), as root,
BEFORE it reads the expectations: nothing held out is ever in this process's memory, and
it never opens, imports or compiles anything of the graded tree. It is root only so that
each child can give itself a uid of its own; the child drops root before any code of the
tree runs.

A request arrives on one of the SOCK_SEQPACKET sockets it was given: a JSON object and,
as SCM_RIGHTS, the three descriptors that become the program's stdin, stdout and stderr.
The server forks without parsing it (each page the server writes costs a page fault per
fork, so its loop does as little as it can); the child

  * reads the request;
  * starts its own session, takes the three descriptors and closes every other one;
  * makes itself the memory ceiling's first victim and takes the request's rlimits;
  * becomes the case's uid and gid, with no supplementary groups (so it cannot signal,
    trace or read the processes of any other case, nor the runner's, nor this server's);
  * then either execs `python3 -m MODULE ARGS` (mode "exec": one interpreter per case)
    or runs MODULE in this already-started interpreter the way `python3 -m` does (mode
    "fork": the fast path; a fork instead of an interpreter start).

A request {"mode": "kill", "uid": U} forks a child that becomes U and calls kill(-1,
SIGKILL): the kernel signals every process of U in one pass that no fork can race (fork
waits on the same lock), which a scan of /proc and a kill per pid cannot promise against
a fork bomb. The caller is spared, so nothing of U is left once it exits.

The server replies {"pid": N} once forked and {"pid": N, "status": WAITSTATUS, "cpu_ms": T}
once the child is reaped (T: the CPU time, user and system, it and its reaped children used). It exits when every socket is closed.

The fast path must behave exactly as `python3 -m` would. The modules this server loads
beyond a bare interpreter start are stdlib modules from the read-only image; a tree that
could shadow any of them (a root-level `csv.py`, say) is run in exec mode instead, since
under `python3 -m` its own module would be the one imported.
"""

import sys

# What a bare `python3` start has loaded: the fast path needs to know what it added.
BASELINE = frozenset(sys.modules)

import builtins  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import selectors  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
import types  # noqa: E402

# Loaded once here so a forked case does not pay for them; all stdlib, all stateless at
# import (nothing seeded from randomness: no random, tempfile, uuid or secrets). Not
# threading: it hooks every fork (os.register_at_fork), and on a machine where a page
# fault is dear that hook alone costs each case about a tenth of its time, used or not.
PRELOAD = (
    "runpy", "argparse", "csv", "json", "re", "collections", "dataclasses", "decimal", "enum",
    "functools", "itertools", "io", "math", "operator", "string", "typing", "textwrap",
    "traceback", "unicodedata", "pathlib", "atexit",
)
import ctypes  # noqa: E402

LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_DUMPABLE = 4
# The largest request read (a JSON object; the program's input goes through a pipe).
REQUEST_MAX = 1 << 20
LIMITS = {"as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC, "nofile": resource.RLIMIT_NOFILE,
          "core": resource.RLIMIT_CORE, "msgqueue": resource.RLIMIT_MSGQUEUE, "cpu": resource.RLIMIT_CPU}


def preload():
    import importlib
    for name in PRELOAD:
        importlib.import_module(name)


def added_top_level_names():
    """Top-level names of the modules this server holds that a bare start would not."""
    return {name.split(".")[0] for name in sys.modules if name not in BASELINE}


# (number of modules, their added top-level names), computed in the server once: a child
# that walked sys.modules would write to (and so copy) every page holding a module name.
# Modules are only ever added, so an unchanged count is an unchanged set.
added = [0, frozenset()]


def added_names_now():
    if added[0] != len(sys.modules):
        added[:] = [len(sys.modules), frozenset(added_top_level_names())]
    return added[1]


def shadows(tree_entries, names):
    """Whether a root-level entry of the tree could be imported under one of `names`."""
    for entry in tree_entries:
        if entry.split(".")[0] in names:
            return True
    return False


def exit_code_of(exc):
    """The status `python3` exits with for an uncaught SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write("%s\n" % (code,))
    except Exception:
        pass
    return 1


def run_as_main(module, args):
    """What `python3 -m module args` does after interpreter start, then exit."""
    import runpy

    main = types.ModuleType("__main__")
    main.__dict__["__builtins__"] = builtins
    sys.modules["__main__"] = main
    sys.argv = ["-m", *args]
    sys.orig_argv = [sys.executable, "-m", module, *args]
    sys.path[0] = os.getcwd()
    # Only the tree's folder needs a fresh finder: the server never imported from it, and the
    # other sys.path folders are the interpreter's own, which no case can write. Their cached
    # listings (made by the preload) are what a fork saves over a fresh start; clearing them
    # made every case list the standard library again.
    sys.path_importer_cache.pop(sys.path[0], None)
    code = 0
    try:
        runpy._run_module_as_main(module)
    except SystemExit as exc:
        code = exit_code_of(exc)
    except BaseException:
        try:
            sys.excepthook(*sys.exc_info())
        except BaseException:
            pass
        code = 1
    # Interpreter shutdown, in its order: non-daemon threads, atexit, then the std streams.
    try:
        if "threading" in sys.modules:
            sys.modules["threading"]._shutdown()
        import atexit
        atexit._run_exitfuncs()
    except BaseException:
        pass
    try:
        sys.stdout.flush()
    except BaseException:
        code = 120
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code)


def killer(uid):
    """Kill every process of `uid` but this one. Never returns."""
    try:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        for _ in range(3):
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                break
    except BaseException:
        os._exit(1)
    os._exit(0)


def child(request, fds):
    """Become the case's process. Never returns."""
    try:
        os.setsid()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        # os.open, not open(): a text file object costs a forked case more than the write.
        try:
            fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            try:
                os.write(fd, b"1000")
            finally:
                os.close(fd)
        except OSError:
            pass
        for name, value in request.get("limits", {}).items():
            # CPU seconds: SIGXCPU at the limit, SIGKILL a second later for a program that ignores it.
            resource.setrlimit(LIMITS[name], (value, value + 1) if name == "cpu" else (value, value))
        uid, gid = request["uid"], request["gid"]
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid or os.geteuid() != uid or os.getgid() != gid:
            os._exit(126)
        # Changing uid made the process non-dumpable (its /proc entries root's); an exec'd
        # program is dumpable again, so the fast path sets it back to behave the same.
        LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        os.chdir(request["cwd"])
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(request["env"])
        mode = request["mode"]
        if mode == "fork" and not shadows(os.listdir("."), added_names_now()):
            run_as_main(request["module"], request["args"])
        argv = request.get("argv") or [sys.executable, "-m", request["module"], *request["args"]]
        # As subprocess does (restore_signals): a fresh program starts with default dispositions.
        for name in ("SIGPIPE", "SIGXFSZ"):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
        os.execve(argv[0], argv, request["env"])
    except BaseException:
        pass
    os._exit(127)


def serve(sockets):
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    sel = selectors.DefaultSelector()
    sel.register(wake_r, selectors.EVENT_READ)
    for sock in sockets:
        sel.register(sock, selectors.EVENT_READ)
    owners = {}
    open_sockets = len(sockets)
    sockets[0].send(json.dumps({"ready": True, "preloaded": len(added_names_now())}).encode())
    # Every page this loop writes is copied (or at least faulted on) once per fork, so it
    # does as little as it can: the child, not the server, parses the request.
    while open_sockets:
        for key, _ in sel.select(timeout=1.0):
            if key.fileobj == wake_r:
                try:
                    while os.read(wake_r, 4096):
                        pass
                except BlockingIOError:
                    pass
                continue
            sock = key.fileobj
            try:
                message, fds, _, _ = socket.recv_fds(sock, REQUEST_MAX, 3)
            except OSError:
                message, fds = b"", []
            if not message:
                sel.unregister(sock)
                sock.close()
                open_sockets -= 1
                continue
            try:
                pid = os.fork()
            except OSError as exc:
                for fd in fds:
                    os.close(fd)
                sock.send(json.dumps({"error": "fork failed: %s" % exc.strerror}).encode())
                continue
            if pid == 0:
                start(message, fds)
            for fd in fds:
                os.close(fd)
            owners[pid] = sock
            sock.send(b'{"pid": %d}' % pid)
        reap(owners)


def start(message, fds):
    """In the forked child: read the request, then become a killer or the case. Never returns."""
    try:
        request = json.loads(message)
    except BaseException:
        os._exit(127)
    if request["mode"] == "kill":
        killer(request["uid"])
    child(request, fds)


def reap(owners):
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        sock = owners.pop(pid, None)
        if sock is not None:
            try:
                sock.send(b'{"pid": %d, "status": %d, "cpu_ms": %d}' % (pid, status, int((usage.ru_utime + usage.ru_stime) * 1000)))
            except OSError:
                pass


def main():
    sockets = [socket.socket(fileno=int(fd)) for fd in sys.argv[1:]]
    preload()
    serve(sockets)


if __name__ == "__main__":
    main()
