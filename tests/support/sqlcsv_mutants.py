"""Automatic mutation of the sqlcsv reference (oracle/sqlcsv/reference), graded by the oracle's
own cases and judge, to measure how much of the reference's behaviour the case set pins.

Run by `npm run mutants:sqlcsv-auto` (the whole pass) and, on a fixed-seed sample, by
tests/oracle/sqlcsv/auto-mutants.test.ts. Usage:

    python3 tests/support/sqlcsv_mutants.py [--sample N --seed S] [--only ID,...] [--json]
    python3 tests/support/sqlcsv_mutants.py --hand     # the hand-written mutants' requirements

Mutation operators (each mutant is one change at one place, named FILE:LINE:COL:OPERATOR:TO):
  compare    a comparison operator swapped for a neighbour (< <=, > >=, == !=, in / not in, is / is not)
  boolean    `and` <-> `or`; `not x` -> `x`
  constant   an integer constant n -> n+1 and n-1; True <-> False; a string constant emptied, and
             one of up to four characters with each character dropped in turn
  branch     an `if`/`while`/ternary condition negated; `break` <-> `continue`
  strmethod  a string method swapped for its sibling (startswith/endswith, ljust/rjust, lower/upper,
             strip/lstrip/rstrip, isdigit/isalnum, partition/rpartition, find/rfind, isascii/isprintable)
  number     int() <-> float() in number parsing
  arith      + <-> -, * -> //, / -> //
The CSV and JSON writers are output.py and loader.py: every operator above applies to them.
Never mutated (not behaviour the spec constrains): docstrings, and the text of diagnostics (the
arguments of usage_error, name_error, Failure, AssertionError and the parser's fail and expect_identifier), whose wording SPEC.md
section 1 leaves free.

Mutants are graded in turn by one worker interpreter (memory capped) that imports the package
afresh for each, every case run in-process with a 3 s alarm like the oracle's limit; a mutant that
crashes the worker counts as killed and a new worker takes the rest. The judge is the oracle's
judge.py. The harness is checked twice before a score counts: the unmutated reference passes every
case, and (--hand) each hand-written mutant of mutants.yaml fails exactly the requirements it records. A mutant is killed when any case fails. The survivors file
(oracle/sqlcsv/auto-mutants-survivors.yaml) gives every survivor a reason: `equivalent` (no
input can tell it from the reference, with why) or `missing` (a case the set lacks).
"""

import ast
import copy
import io
import json
import os
import random
import resource
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ORACLE = os.path.join(ROOT, "oracle", "sqlcsv")
REFERENCE = os.path.join(ORACLE, "reference")
SURVIVORS = os.path.join(ORACLE, "auto-mutants-survivors.yaml")
CASE_SECONDS = 3

MESSAGE_CALLS = {"usage_error", "name_error", "Failure", "fail", "expect_identifier", "AssertionError"}
CMP_SWAPS = {
    ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt], ast.GtE: [ast.Gt, ast.LtE],
    ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn], ast.NotIn: [ast.In], ast.Is: [ast.IsNot], ast.IsNot: [ast.Is],
}
STR_METHODS = {
    "startswith": ["endswith"], "endswith": ["startswith"], "ljust": ["rjust"], "rjust": ["ljust"],
    "lower": ["upper"], "upper": ["lower"], "strip": ["lstrip", "rstrip"], "lstrip": ["rstrip"], "rstrip": ["lstrip"],
    "isdigit": ["isalnum"], "isalpha": ["isalnum"], "partition": ["rpartition"], "rpartition": ["partition"],
    "find": ["rfind"], "rfind": ["find"], "isascii": ["isprintable"],
}
ARITH = {ast.Add: [ast.Sub], ast.Sub: [ast.Add], ast.Mult: [ast.FloorDiv], ast.Div: [ast.FloorDiv]}
OP_NAMES = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in", ast.NotIn: "not in",
            ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//"}


# ---- enumeration --------------------------------------------------------------------------
def protected_nodes(tree):
    """Docstrings and the text of diagnostics: never mutated."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out.add(id(first.value))
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in MESSAGE_CALLS:
                for arg in node.args:
                    for sub in ast.walk(arg):
                        out.add(id(sub))
    return out


def sites(tree):
    """Every (node index, operator, label, apply) of one module; apply(node) mutates in place."""
    protected = protected_nodes(tree)
    nodes = list(ast.walk(tree))
    out = []

    def add(i, op, label, fn):
        out.append((i, op, label, fn))

    for i, node in enumerate(nodes):
        if id(node) in protected:
            continue
        if isinstance(node, ast.Compare):
            for k, cmp in enumerate(node.ops):
                for to in CMP_SWAPS.get(type(cmp), []):
                    add(i, "compare", "%s->%s" % (OP_NAMES[type(cmp)], OP_NAMES[to]), lambda n, k=k, to=to: n.ops.__setitem__(k, to()))
        elif isinstance(node, ast.BoolOp):
            to = ast.Or if isinstance(node.op, ast.And) else ast.And
            add(i, "boolean", "and<->or", lambda n, to=to: setattr(n, "op", to()))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            add(i, "boolean", "drop-not", lambda n: (setattr(n, "op", ast.UAdd()), setattr(n, "operand", ast.Call(ast.Name("bool", ast.Load()), [n.operand], []))))
        elif isinstance(node, ast.Constant):
            v = node.value
            if isinstance(v, bool):
                add(i, "constant", "%s->%s" % (v, not v), lambda n: setattr(n, "value", not n.value))
            elif isinstance(v, int):
                add(i, "constant", "%d->%d" % (v, v + 1), lambda n: setattr(n, "value", n.value + 1))
                add(i, "constant", "%d->%d" % (v, v - 1), lambda n: setattr(n, "value", n.value - 1))
            elif isinstance(v, str) and v:
                add(i, "constant", "%r->''" % v, lambda n: setattr(n, "value", ""))
                if 1 < len(v) <= 4:
                    for k in range(len(v)):
                        add(i, "constant", "%r->%r" % (v, v[:k] + v[k + 1:]), lambda n, k=k: setattr(n, "value", n.value[:k] + n.value[k + 1:]))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            add(i, "branch", "negate", lambda n: setattr(n, "test", ast.UnaryOp(ast.Not(), n.test)))
        elif isinstance(node, ast.Break):
            add(i, "branch", "break->continue", None)
        elif isinstance(node, ast.Continue):
            add(i, "branch", "continue->break", None)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STR_METHODS:
            for to in STR_METHODS[node.func.attr]:
                add(i, "strmethod", "%s->%s" % (node.func.attr, to), lambda n, to=to: setattr(n.func, "attr", to))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("int", "float"):
            to = "float" if node.func.id == "int" else "int"
            add(i, "number", "%s->%s" % (node.func.id, to), lambda n, to=to: setattr(n.func, "id", to))
        elif isinstance(node, ast.Name) and node.id in ("int", "float") and isinstance(node.ctx, ast.Load):
            to = "float" if node.id == "int" else "int"
            add(i, "number", "%s->%s" % (node.id, to), lambda n, to=to: setattr(n, "id", to))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH:
            for to in ARITH[type(node.op)]:
                add(i, "arith", "%s->%s" % (OP_NAMES[type(node.op)], OP_NAMES[to]), lambda n, to=to: setattr(n, "op", to()))
    return out


class Swap(ast.NodeTransformer):
    def __init__(self, target):
        self.target = target

    def visit_Break(self, node):
        return ast.Continue() if node is self.target else node

    def visit_Continue(self, node):
        return ast.Break() if node is self.target else node


def enumerate_mutants():
    """[(id, file, mutated source)] over every module of the reference, in a stable order."""
    out = []
    pkg = os.path.join(REFERENCE, "sqlcsv")
    for name in sorted(os.listdir(pkg)):
        if not name.endswith(".py"):
            continue
        source = open(os.path.join(pkg, name), encoding="utf-8").read()
        base = ast.parse(source)
        for index, op, label, fn in sites(base):
            tree = copy.deepcopy(base)
            node = list(ast.walk(tree))[index]
            if fn is None:
                Swap(node).visit(tree)
            else:
                fn(node)
            ast.fix_missing_locations(tree)
            mutant_id = "%s:%d:%d:%s:%s" % (name, node.lineno, node.col_offset, op, label)
            out.append((mutant_id, name, ast.unparse(tree)))
    seen, ids, unique = set(), set(), []
    for mutant_id, name, text in out:
        if (name, text) in seen:  # two sites can unparse alike (e.g. 'aa' with either 'a' dropped)
            continue
        seen.add((name, text))
        n = 2
        while mutant_id in ids:
            mutant_id = "%s#%d" % (mutant_id.split("#")[0], n)
            n += 1
        ids.add(mutant_id)
        unique.append((mutant_id, name, text))
    return unique


# ---- cases and grading --------------------------------------------------------------------
_CASES = None


def set_cases(cases):
    """Grades against `cases` (a list of case dicts) from now on, instead of the oracle's folder."""
    global _CASES
    _CASES = list(cases)


def load_cases():
    """Every case of the oracle, read once per process (the YAML is the slow part of a worker)."""
    global _CASES
    if _CASES is None:
        cases_json = os.environ.get("SQLCSV_CASES_JSON")
        _CASES = json.load(open(cases_json, encoding="utf-8")) if cases_json else read_cases()
    return _CASES


def read_cases(without=None):
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    cases = []
    folder = os.path.join(ORACLE, "cases")
    # SQLCSV_CASES_WITHOUT=generated.yaml grades with a list left out (to compare case sets).
    if without is None:
        without = set(filter(None, os.environ.get("SQLCSV_CASES_WITHOUT", "").split(",")))
    for name in sorted(os.listdir(folder)):
        if name.endswith(".yaml") and name not in without:
            cases.extend(yaml.load(open(os.path.join(folder, name), encoding="utf-8"), Loader=loader))
    return cases


class CaseTimeout(BaseException):
    """Raised by the per-case alarm; a BaseException so that no `except Exception` swallows it."""


def _alarm(signum, frame):
    raise CaseTimeout()


def run_case(case):
    """Runs one case in this interpreter, as `python3 -m sqlcsv` would; returns the judge's `run`.

    In-process (about a millisecond a case) rather than a process per case: the reference keeps no
    state between runs (it reads its tables afresh on every call), and a mutant that loops is cut
    by the alarm. The unmutated reference must pass every case this way before any mutant counts.
    """
    data = os.path.join(ORACLE, "data", case["data"]) if case.get("data") else "/nonexistent-data"
    argv = [a.replace("{data}", data) for a in case["args"]]
    saved = sys.stdin, sys.stdout, sys.stderr, sys.argv
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(case.get("stdin", "").encode("utf-8")), encoding="utf-8")
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(err, encoding="utf-8", write_through=True)
    run = {"spawn_error": None, "timed_out": False}
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
    try:
        try:
            # Through the package's __main__.py, as `python3 -m sqlcsv` runs it.
            sys.argv = ["sqlcsv"] + argv
            runpy.run_module("sqlcsv", run_name="__main__", alter_sys=False)
            status = 0
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        except CaseTimeout:
            run["timed_out"], status = True, -1
        except Exception:  # an uncaught error exits 1 with a traceback, as the interpreter does
            import traceback

            traceback.print_exc()
            status = 1
        sys.stdout.flush()
        sys.stderr.flush()
    except CaseTimeout:
        run["timed_out"], status = True, -1
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        # Read before the wrappers are dropped: collecting a wrapper closes its buffer.
        run.update(stdout=out.getvalue(), stderr=err.getvalue())
        sys.stdin, sys.stdout, sys.stderr, sys.argv = saved
    run["exit"] = status if status < 0 else status & 0xFF
    return run


def batch_worker(folder, every=False):
    """Grades many mutants in one interpreter: for each line of `folder`/batch.json's list, the
    package is imported afresh from `folder` with that mutant's file in place, and the first
    failing case printed (`id<TAB>case`, empty when none). Cases that killed recent mutants go
    first. A mutant that crashes the interpreter ends the worker; the caller counts it killed."""
    import importlib

    sys.path.insert(0, ORACLE)
    import judge as oracle_judge  # oracle/sqlcsv/judge.py

    resource.setrlimit(resource.RLIMIT_AS, (1 << 31, 1 << 31))
    sys.path.insert(0, folder)
    pkg = os.path.join(folder, "sqlcsv")
    killers = []
    for mutant_id, files in json.load(open(os.path.join(folder, "batch.json"), encoding="utf-8")):
        originals = {name: open(os.path.join(pkg, name), encoding="utf-8").read() for name in files}
        for name, text in files.items():
            with open(os.path.join(pkg, name), "w", encoding="utf-8") as f:
                f.write(text)
        for mod in [m for m in sys.modules if m == "sqlcsv" or m.startswith("sqlcsv.")]:
            del sys.modules[mod]
        importlib.invalidate_caches()
        first = ""
        try:
            signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, CASE_SECONDS)
            try:
                # Every module of the package, so a mutant that breaks an import is caught here.
                for module in sorted(os.listdir(pkg)):
                    if module.endswith(".py") and module != "__main__.py":
                        importlib.import_module("sqlcsv" if module == "__init__.py" else "sqlcsv." + module[:-3])
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except BaseException:
            first = "<import>"
        if not first:
            rank = {cid: i for i, cid in enumerate(killers)}
            failing = []
            for case in sorted(load_cases(), key=lambda c: rank.get(c["id"], len(rank))):
                run = run_case(case)
                if run["timed_out"] or oracle_judge.judge(case, run) is not None:
                    failing.append(case["id"])
                    if not every:
                        killers = [case["id"]] + [k for k in killers if k != case["id"]][:40]
                        break
            # Every failing case (comma-separated) when asked for all, else the first.
            first = ",".join(failing)
        for name, text in originals.items():
            with open(os.path.join(pkg, name), "w", encoding="utf-8") as f:
                f.write(text)
        sys.stdout.write("%s\t%s\n" % (mutant_id, first))
        sys.stdout.flush()


def grade_batch(mutants, progress, every=False, package=None):
    """{mutant id: first failing case id, or '' when it survived}, grading `mutants` in batch workers.

    `package` is the folder of the program mutated (the reference's `sqlcsv` by default; the
    generator also grades the SIMULATED corpus's planted defects this way)."""
    result, pending = {}, list(mutants)
    while pending:
        with tempfile.TemporaryDirectory(prefix="sqlcsv-mutants-") as tmp:
            shutil.copytree(package or os.path.join(REFERENCE, "sqlcsv"), os.path.join(tmp, "sqlcsv"), ignore=shutil.ignore_patterns("__pycache__"))
            with open(os.path.join(tmp, "batch.json"), "w", encoding="utf-8") as f:
                json.dump([(m[0], m[1] if isinstance(m[1], dict) else {m[1]: m[2]}) for m in pending], f)
            cases_json = os.path.join(tmp, "cases.json")
            with open(cases_json, "w", encoding="utf-8") as f:
                json.dump(load_cases(), f)
            env = dict(os.environ, SQLCSV_CASES_JSON=cases_json)
            proc = subprocess.Popen([sys.executable, "-I", "-B", __file__, "--batch", tmp] + (["--every"] if every else []), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
            for line in proc.stdout:
                mutant_id, _, first = line.rstrip("\n").partition("\t")
                result[mutant_id] = first
                progress(len(result), mutant_id, first)
            proc.wait()
        done = set(result)
        rest = [m for m in pending if m[0] not in done]
        if rest:  # the worker died on rest[0]: a crash is a detection
            result[rest[0][0]] = "<crash>"
            progress(len(result), rest[0][0], "<crash>")
            rest = rest[1:]
        pending = rest
    return result


def load_survivors():
    import yaml

    if not os.path.exists(SURVIVORS):
        return {}
    return {s["mutant"]: s for s in (yaml.safe_load(open(SURVIVORS, encoding="utf-8")) or [])}


def patched(package, edits):
    """{file name: text} of `package` with each edit's `find` replaced by its `replace` once."""
    files = {}
    for edit in edits:
        name = edit["file"].split("/")[-1]
        text = files.get(name) or open(os.path.join(package, name), encoding="utf-8").read()
        if edit["find"] not in text:
            raise RuntimeError("a patch no longer applies to %s: %r" % (name, edit["find"][:60]))
        files[name] = text.replace(edit["find"], edit["replace"], 1)
    return files


def hand_batch(mutants):
    """[(id, files)] of mutants.yaml's hand-written mutants, for grade_batch."""
    return [(m["id"], patched(os.path.join(REFERENCE, "sqlcsv"), m["patch"])) for m in mutants]


def hand_mutants():
    """Each hand-written mutant of mutants.yaml: the requirements its failing cases decide."""
    import yaml

    mutants = yaml.safe_load(open(os.path.join(ORACLE, "mutants.yaml"), encoding="utf-8"))
    req_of = {c["id"]: c["req"] for c in load_cases()}
    found = grade_batch(hand_batch(mutants), lambda *a: None, every=True)
    return {
        m["id"]: {"recorded": sorted(m["breaks"]), "found": sorted({req_of.get(c, c) for c in found.get(m["id"], "").split(",") if c})}
        for m in mutants
    }


def main():
    argv = sys.argv[1:]
    if argv and argv[0] == "--batch":
        batch_worker(argv[1], "--every" in argv)
        return 0
    if "--hand" in argv:
        result = hand_mutants()
        differ = {k: v for k, v in result.items() if v["recorded"] != v["found"]}
        print(json.dumps(differ, indent=1))
        print("%d hand mutants, %d with a different set of failing requirements" % (len(result), len(differ)), file=sys.stderr)
        return 0
    started = time.time()
    # The unmutated reference, through the very worker every mutant goes through.
    baseline = grade_batch([("reference", {})], lambda *a: None, every=True)["reference"]
    if baseline:
        print("the reference fails cases in this harness: %s" % baseline, file=sys.stderr)
        return 1
    mutants = enumerate_mutants()
    if "--only" in argv:
        wanted = set(argv[argv.index("--only") + 1].split(","))
        mutants = [m for m in mutants if m[0] in wanted]
    if "--shard" in argv:  # K/N: every N-th mutant from the K-th, so N processes can share a pass
        k, n = map(int, argv[argv.index("--shard") + 1].split("/"))
        mutants = mutants[k::n]
    if "--skip-file" in argv:  # ids already graded (one per line), to resume a pass
        done = set(open(argv[argv.index("--skip-file") + 1], encoding="utf-8").read().splitlines())
        mutants = [m for m in mutants if m[0] not in done]
    if "--sample" in argv:
        seed = int(argv[argv.index("--seed") + 1]) if "--seed" in argv else 0
        mutants = random.Random(seed).sample(mutants, min(int(argv[argv.index("--sample") + 1]), len(mutants)))
    survivors_file = load_survivors()
    def progress(n, mutant_id, first):
        if "--progress" in argv:
            print("[%d/%d] %s %s" % (n, len(mutants), "killed" if first else "SURVIVED", mutant_id), file=sys.stderr, flush=True)

    firsts = grade_batch(mutants, progress)
    killed = [m[0] for m in mutants if firsts.get(m[0])]
    survived = [m[0] for m in mutants if not firsts.get(m[0])]
    equivalent = [m for m in survived if survivors_file.get(m, {}).get("reason") == "equivalent"]
    unexplained = [m for m in survived if m not in survivors_file]
    whole = "--sample" not in argv and "--only" not in argv and "--shard" not in argv and "--skip-file" not in argv
    # A listed survivor that is no longer a mutant, or that a case now kills: its entry is stale.
    stale = [m for m in survivors_file if m not in {x[0] for x in mutants} or firsts.get(m)] if whole else []
    non_equivalent = len(mutants) - len(equivalent)
    score = len(killed) / non_equivalent if non_equivalent else 1.0
    report = {
        "mutants": len(mutants), "killed": len(killed), "survived": len(survived), "equivalent": len(equivalent),
        "score": round(score, 4), "unexplained": unexplained, "stale": stale, "survivors": survived,
        "seconds": round(time.time() - started, 1),
    }
    if "--json" in argv:
        print(json.dumps(report))
    else:
        print("%d mutants: %d killed, %d survived (%d equivalent); killed %.1f%% of the %d non-equivalent (%.0f s)"
              % (len(mutants), len(killed), len(survived), len(equivalent), 100 * score, non_equivalent, report["seconds"]))
        for m in unexplained:
            print("  survivor without a reason in %s: %s" % (os.path.relpath(SURVIVORS, ROOT), m))
        for m in stale:
            print("  listed survivor that is no longer a mutant, or is now killed: %s" % m)
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    sys.exit(main())
