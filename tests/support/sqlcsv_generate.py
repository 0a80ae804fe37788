"""Generates sqlcsv oracle cases by method: seeded data and seeded queries drawn from the
grammar of spec/sqlcsv/SPEC.md section 4.1, each kept only when SQLite gives the same rows.

Run by `npm run cases:sqlcsv` (python3 tests/support/sqlcsv_generate.py [--check]). It writes
oracle/sqlcsv/data/gen/*.csv and oracle/sqlcsv/cases/generated.yaml; with --check it writes
nothing and fails when the committed files differ from what the seed gives.

Why each choice keeps a case inside the part of the language where the spec and SQLite agree
(the oracle audit's `differs` and `skip` reasons in oracle/sqlcsv/cases/*.yaml name the rest):
- comparisons pair a numeric operand with a numeric one and a text operand with a text one
  (SQLite's column affinity turns '31' into 31 where the spec never equates them);
- decimal values are multiples of 1/8, so every sum is exact and SQLite's compensated summation
  cannot differ from the spec's left-to-right one;
- aggregates are written as the spec names them (`COUNT(*)`, no spaces), and no header is
  compared, so SQLite's names are never asked;
- order is compared only when the query's ORDER BY decides it: SQLite is run twice, on the rows
  as filed and reversed, and a case is `ordered: true` only when both runs and the reference give
  the same sequence; otherwise rows are compared in any order, and a query whose LIMIT picks a
  different set of rows in the two runs is dropped (ties cut by LIMIT are unspecified in SQLite);
- groups and natural order (SQLite returns groups in key order) are compared in any order.
Any other difference between the reference and SQLite fails the generator: it is a finding.

Then the drawn cases are selected (sqlcsv_select.py): only isolated ones (no hand-written mutant or planted
corpus defect fails them outside the requirements it records), and of those the fewest that kill
the automatic mutants (sqlcsv_mutants.py) the hand-written cases let live, plus one per
requirement. docs/oracle-by-method.md gives the figures.
"""

import io
import json
import os
import random
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ORACLE = os.path.join(ROOT, "oracle", "sqlcsv")
DATA_ROOT = os.path.join(ORACLE, "data")
# Two data sets of one schema. `gen` mixes NULLs, negative numbers, duplicates, mixed case and
# non-ASCII text; `gen-plain` has none of them. A case decides one requirement, and those features
# are other requirements' (NULL logic R26, NULL order R27, COUNT of NULLs R29, negative integers
# R02, text comparison R22/R23): only the profiles of those requirements query `gen`.
DATA_SETS = ("gen", "gen-plain")
MESSY_PROFILES = {"R26", "R27", "R29"}
CASES = os.path.join(ORACLE, "cases", "generated.yaml")
REFERENCE = os.path.join(ORACLE, "reference")
SEED = 31
PER_PROFILE = 24

sys.path.insert(0, REFERENCE)
from sqlcsv.cli import main as reference_main  # noqa: E402

# ---- data ---------------------------------------------------------------------------------
# No value repeats one of SPEC.md's examples (tests/harness/grading/oracle-validity.test.ts, item 5).
# Names start with each end of the letter ranges (a, z, Z) so the lexer's bounds are read.
# Column names are unique across tables, so a bare name is never ambiguous; join keys are
# items.cat = cats.code (text) and items.id = moves.item (integer).
TABLES = {
    "items": [("id", "int"), ("name", "text"), ("qty", "int"), ("price", "dec"), ("cat", "text")],
    "cats": [("code", "text"), ("Zlabel", "text"), ("rank", "int")],
    "moves": [("item", "int"), ("delta", "int"), ("zone", "text"), ("day", "int")],
}
WORDS = ["apple", "Apple", "apricot", "bolt", "Bolt", "b", "gear", "zeta", "Zeta", "é", "éclair", "日本", "a b", "ab", "x'y"]
CODES = ["A", "B", "C", "a", "D"]
PLAIN_WORDS = ["apricot", "bolt", "b", "gear", "zeta", "ab", "kiln", "mast"]
PLAIN_CODES = ["A", "B", "C", "D"]
# Set while drawing one profile's query. `on`: the profile queries gen-plain, and draws nothing that
# another requirement owns: literals from its values, no IS NULL (R26), only `=`, `<` and `>` where
# any comparison will do (the other operators are R22's and R23's), columns in file order (select
# order is R19's) with the unique `id` among them (duplicate rows would lean on DISTINCT, R21).
# `single_key`: ORDER BY has one key (several keys are R13's).
PLAIN = {"on": False, "single_key": False}
BASIC_OPS = ["=", "<", ">"]


def gen_data(rng, plain):
    def maybe(v, p=0.15):
        return v if plain or rng.random() >= p else ""

    words, codes = (PLAIN_WORDS, PLAIN_CODES) if plain else (WORDS, CODES)
    items = []
    for i in [n for n in range(1, 18) if n != 15]:
        qty = str(rng.choice([0, 2, 9, 9, 71, 500, 5, 13] if plain else [-41, -7, 0, 2, 9, 9, 71, 500, 5, 13]))
        price = rng.choice([0.5, 2.25, 8.0, 6.125, 10.5, 0.375, 3.0] + ([] if plain else [-1.75]))
        # Integer forms in a decimal column are R03's (and a column typed by its first value
        # would read "8" as an integer): gen-plain writes every price with its point.
        price_text = ("%d" % price) if not plain and price == int(price) and rng.random() < 0.5 else repr(price)
        items.append([str(i), maybe(rng.choice(words)), maybe(qty), maybe(price_text), maybe(rng.choice(codes + ["E"]), 0.1)])
    rng.shuffle(items)  # file order is not id order
    cats = [[c, maybe(rng.choice(words), 0.2), maybe(str(rng.randint(1, 4)), 0.2)] for c in codes]
    if not plain:
        cats.append(["", "none", "9"])
    moves = []
    for _ in range(14):
        delta = rng.choice([1, 1, 2, 10] if plain else [-3, 1, 1, 2, 10])
        item = rng.randint(1, 20)
        item = 21 if item == 15 else item  # 15 is one of SPEC.md's example values
        moves.append([maybe(str(item), 0.1), str(delta), maybe(rng.choice(words), 0.2), str(rng.randint(1, 5))])
    return {"items": items, "cats": cats, "moves": moves}


def csv_text(header, rows):
    return "".join(",".join(r) + "\n" for r in [header] + rows)


# ---- queries ------------------------------------------------------------------------------
class Q:
    """One drawn query: its text, the requirement it decides, and what it uses."""

    def __init__(self, req, sql, limit=False):
        self.req, self.sql, self.limit = req, sql, limit
        self.data = "gen"


def columns_of(tables):
    return [(t, c, ty) for t in tables for c, ty in TABLES[t]]


def ref(rng, t, c, qualify):
    return "%s.%s" % (t, c) if qualify or rng.random() < 0.3 else c


def literal(rng, ty):
    if PLAIN["on"]:
        if ty == "text":
            return "'%s'" % rng.choice(PLAIN_WORDS + PLAIN_CODES + ["appr", "c"])
        return rng.choice(["2.25", "8", "6.125", "3"] if ty == "dec" else ["9", "0", "71", "13", "500", "2"])
    if ty == "text":
        return "'%s'" % rng.choice(WORDS + CODES + ["", "appl", "Z"]).replace("'", "''")
    if ty == "dec":
        return rng.choice(["2.25", "-1.75", "0.4", "8", "6.125", "3"])
    return rng.choice(["9", "-7", "0", "71", "13", "7.25", "-41", "500"])


def numeric(ty):
    return ty in ("int", "dec")


def comparison(rng, cols, qualify, ops):
    if PLAIN["on"] and ops is ALL_OPS:
        ops = BASIC_OPS
    t, c, ty = rng.choice(cols)
    left = ref(rng, t, c, qualify)
    if rng.random() < 0.25:
        others = [x for x in cols if numeric(x[2]) == numeric(ty) and x[1] != c]
        if others:
            t2, c2, _ = rng.choice(others)
            return "%s %s %s" % (left, rng.choice(ops), ref(rng, t2, c2, qualify))
    lit = literal(rng, ty)
    if rng.random() < 0.3:
        return "%s %s %s" % (lit, rng.choice(ops), left)
    return "%s %s %s" % (left, rng.choice(ops), lit)


def condition(rng, cols, qualify, depth, ops, logic):
    roll = rng.random()
    if depth > 0 and roll < 0.45 and logic:
        op = rng.choice(logic)
        if op == "NOT":
            inner = condition(rng, cols, qualify, depth - 1, ops, logic)
            return "NOT %s" % (inner if rng.random() < 0.5 else "(%s)" % inner)
        a = condition(rng, cols, qualify, depth - 1, ops, logic)
        b = condition(rng, cols, qualify, depth - 1, ops, logic)
        text = "%s %s %s" % (a, op, b)
        return "(%s)" % text if rng.random() < 0.3 else text
    if roll < 0.6 and not PLAIN["on"]:
        t, c, _ = rng.choice(cols)
        return "%s IS %sNULL" % (ref(rng, t, c, qualify), rng.choice(["", "NOT "]))
    return comparison(rng, cols, qualify, ops)


def select_list(rng, cols, qualify, n=None):
    # No column twice: a repeated output column is R19's.
    picked = rng.sample(cols, min(n or rng.randint(1, 4), len(cols)))
    if PLAIN["on"]:
        key = next((x for x in cols if x[1] == "id"), None)
        if key and key not in picked:
            picked[0] = key
    picked.sort(key=cols.index)  # select order other than the file's is R19's
    return picked, ", ".join(ref(rng, t, c, qualify) for t, c, _ in picked)


def order_by(rng, cols, qualify, keys, directions):
    if PLAIN["single_key"]:
        keys = 1
    out = []
    for t, c, _ in rng.sample(cols, min(keys, len(cols))):
        out.append(ref(rng, t, c, qualify) + rng.choice(directions))
    return ", ".join(out)


ALL_OPS = ["=", "!=", "<>", "<", "<=", ">", ">="]
ITEMS = columns_of(["items"])


def draw(rng, profile):
    """One query of a profile: each profile exercises one requirement's feature on a plain base."""
    if profile == "R22":
        cond = condition(rng, ITEMS, False, 0, ["=", "!=", "<>"], [])
        return Q("R22", "SELECT %s FROM items WHERE %s" % (select_list(rng, ITEMS, False)[1], cond))
    if profile == "R23":
        cond = condition(rng, ITEMS, False, 0, ["<", "<=", ">", ">="], [])
        return Q("R23", "SELECT %s FROM items WHERE %s" % (select_list(rng, ITEMS, False)[1], cond))
    if profile == "R24":
        cond = condition(rng, ITEMS, False, 3, ALL_OPS, ["AND", "OR"])
        return Q("R24", "SELECT %s FROM items WHERE %s" % (select_list(rng, ITEMS, False)[1], cond))
    if profile == "R25":
        cond = condition(rng, ITEMS, False, 3, ALL_OPS, ["NOT", "NOT", "AND", "OR"])
        return Q("R25", "SELECT %s FROM items WHERE %s" % (select_list(rng, ITEMS, False)[1], cond))
    if profile == "R26":
        nullable = [x for x in ITEMS if x[1] != "id"]
        cond = condition(rng, nullable, False, 2, ALL_OPS, ["NOT", "AND", "OR"])
        return Q("R26", "SELECT id FROM items WHERE %s" % cond)
    if profile == "R13":
        return Q("R13", "SELECT %s FROM items ORDER BY %s" % (select_list(rng, ITEMS, False)[1], order_by(rng, ITEMS, False, rng.randint(2, 4), ["", " ASC"])))
    if profile == "R27":
        return Q("R27", "SELECT %s FROM items ORDER BY %s" % (select_list(rng, ITEMS, False)[1], order_by(rng, ITEMS, False, rng.randint(1, 3), [" DESC", " ASC", ""])))
    if profile == "R28":
        n, m = rng.randint(0, 6), rng.randint(0, 5)
        tail = "LIMIT %d" % n if rng.random() < 0.4 else "LIMIT %d OFFSET %d" % (n, m)
        cond = " WHERE %s" % condition(rng, ITEMS, False, 1, ALL_OPS, ["AND", "OR"]) if rng.random() < 0.5 else ""
        order = "id" + rng.choice(["", " DESC"]) if PLAIN["single_key"] else order_by(rng, ITEMS, False, 5, ["", " DESC"])
        return Q("R28", "SELECT %s FROM items%s ORDER BY %s %s" % (select_list(rng, ITEMS, False)[1], cond, order, tail), limit=True)
    if profile == "R21":
        picked, text = select_list(rng, [x for x in ITEMS if x[1] != "id"], False, rng.randint(1, 2))
        return Q("R21", "SELECT DISTINCT %s FROM items" % text)
    if profile in ("R29", "R30"):
        aggs = [aggregate(rng, ITEMS, False, profile == "R29") for _ in range(rng.randint(1, 3))]
        cond = " WHERE %s" % condition(rng, ITEMS, False, 1, ALL_OPS, ["AND", "OR"]) if rng.random() < 0.6 else ""
        return Q(profile, "SELECT %s FROM items%s" % (", ".join(aggs), cond))
    if profile in ("R31", "R32"):
        keys = rng.sample([x for x in ITEMS if x[1] != "id"], rng.randint(1, 2))
        aggs = [aggregate(rng, ITEMS, False, rng.random() < 0.3) for _ in range(rng.randint(1, 2))]
        items = [c for _, c, _ in sorted(keys, key=ITEMS.index)] + aggs  # keys in file order, then aggregates
        sql = "SELECT %s FROM items GROUP BY %s" % (", ".join(items), ", ".join(c for _, c, _ in keys))
        if profile == "R32":
            agg = aggregate(rng, ITEMS, False, True)
            sql += " HAVING %s %s %s" % (agg, rng.choice(ALL_OPS), rng.choice(["1", "2", "0"]))
        return Q(profile, sql)
    if profile in ("R33", "R34"):
        join = "JOIN" if profile == "R33" else rng.choice(["LEFT JOIN", "LEFT OUTER JOIN"])
        second = rng.choice(["cats", "moves"])
        on = "items.cat = cats.code" if second == "cats" else "moves.item = items.id"
        cols = columns_of(["items", second])
        picked, text = select_list(rng, cols, True)
        cond = " WHERE %s" % condition(rng, cols, True, 1, ALL_OPS, ["AND"]) if rng.random() < 0.3 else ""
        star = rng.random() >= 0.8 and not PLAIN["on"]  # `*` over a join is R11's
        return Q(profile, "SELECT %s FROM items %s %s ON %s%s" % ("*" if star else text, join, second, on, cond))
    if profile in ("R22x", "R23x"):
        # A numeric column against a text literal that does not look like a number: the spec and
        # SQLite agree (number < text; never equal) only for such literals, which SQLite's
        # numeric affinity leaves as text.
        t, c, _ = rng.choice([x for x in ITEMS if numeric(x[2])])
        ops = ["=", "!=", "<>"] if profile == "R22x" else ["<", "<=", ">", ">="]
        lit = "'%s'" % rng.choice(PLAIN_WORDS if PLAIN["on"] else WORDS).replace("'", "''")
        cond = "%s %s %s" % ((c, rng.choice(ops), lit) if rng.random() < 0.5 else (lit, rng.choice(ops), c))
        return Q(profile[:3], "SELECT %s FROM items WHERE %s" % (select_list(rng, ITEMS, False)[1], cond))
    if profile == "R20":
        picked = sorted(rng.sample(ITEMS, rng.randint(1, 3)), key=ITEMS.index)
        names = ["k%d" % i for i in range(len(picked))]
        items = ", ".join("%s AS %s" % (c, n) for (_, c, _), n in zip(picked, names))
        keys = [rng.choice(names) + rng.choice(["", " DESC"])] + [ref(rng, t, c, False) + rng.choice(["", " DESC"]) for t, c, _ in rng.sample(ITEMS, 2)]
        return Q("R20", "SELECT %s FROM items ORDER BY %s" % (items, ", ".join(keys[:1] if PLAIN["single_key"] else keys)))
    if profile == "R21o":
        key = rng.choice([x for x in ITEMS if x[1] not in ("id", "price")])
        agg = aggregate(rng, ITEMS, False, rng.random() < 0.3)
        order = [agg + rng.choice(["", " DESC"]), key[1] + rng.choice(["", " DESC"])]
        rng.shuffle(order)
        order = order[:1] if PLAIN["single_key"] else order
        return Q("R21", "SELECT DISTINCT %s, %s FROM items GROUP BY %s ORDER BY %s" % (key[1], agg, key[1], ", ".join(order)))
    raise ValueError(profile)


COLUMN_NAMES = sorted({c for cols in TABLES.values() for c, _ in cols}, key=len, reverse=True)


def unknown_name(rng, base):
    """`base` with one column name, in any clause, replaced by a name no table has (exit 3)."""
    import re

    spots = [m for m in re.finditer(r"(?<![.\w'])(%s)\b" % "|".join(COLUMN_NAMES), base.sql)]
    spots += [m for m in re.finditer(r"(?<=\.)(%s)\b" % "|".join(COLUMN_NAMES), base.sql)]
    if not spots:
        return None
    m = rng.choice(spots)
    return Q("R16", base.sql[:m.start()] + m.group(1) + "x" + base.sql[m.end():])


def aggregate(rng, cols, qualify, counts_only):
    t, c, ty = rng.choice(cols)
    if counts_only:
        return rng.choice(["COUNT(*)", "COUNT(%s)" % ref(rng, t, c, qualify)])
    fns = ["MIN", "MAX", "COUNT"] + (["SUM", "AVG"] if numeric(ty) else [])
    return "%s(%s)" % (rng.choice(fns), ref(rng, t, c, qualify))


# What a profile's query must show to decide its requirement: a query of R24's profile with no AND
# beside an OR says nothing about precedence, and one of R25's without NOT nothing about NOT; such
# a query would charge a comparison's failure to R24 or R25.
FEATURES = {
    "R24": lambda sql: " AND " in sql and " OR " in sql,
    "R25": lambda sql: "NOT " in sql,
    "R26": lambda sql: "NULL" in sql or "NOT " in sql,  # a bare comparison cannot tell unknown from false
    "R27": lambda sql: " DESC" in sql,
}

PROFILES = ["R13", "R21", "R22", "R23", "R24", "R25", "R26", "R27", "R28", "R29", "R30", "R31", "R32", "R33", "R34", "R22x", "R23x", "R20", "R21o"]
# Error cases: a query of these profiles with one column name made unknown, and the query itself as
# its positive twin; SQLite must reject the first and accept the second.
ERROR_BASES = ["R13", "R20", "R24", "R31", "R32", "R33", "R34", "R21o"]


# ---- running ------------------------------------------------------------------------------
def run_reference(sql, data):
    """The reference's csv output rows (as rendered strings), in order, on data set `data`."""
    import contextlib
    import csv

    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = reference_main(["--data", os.path.join(DATA_ROOT, data), "--format", "csv", sql])
    out.flush()
    if status != 0:
        raise RuntimeError("the reference rejects a generated query (%s): %s" % (err.getvalue().strip(), sql))
    text = out.buffer.getvalue().decode("utf-8")
    return list(csv.reader(io.StringIO(text, newline="")))[1:]


def sqlite_script(data, reverse):
    lines = []
    for table, cols in TABLES.items():
        sqltype = {"int": "INTEGER", "dec": "REAL", "text": "TEXT"}
        lines.append('CREATE TABLE "%s" (%s);' % (table, ", ".join('"%s" %s' % (c, sqltype[ty]) for c, ty in cols)))
        rows = list(reversed(data[table])) if reverse else data[table]
        for row in rows:
            vals = ["NULL" if v == "" else ("'%s'" % v.replace("'", "''") if ty == "text" else v) for v, (_, ty) in zip(row, cols)]
            lines.append('INSERT INTO "%s" VALUES (%s);' % (table, ", ".join(vals)))
    return "\n".join(lines)


def run_sqlite(script, sql):
    proc = subprocess.run(["sqlite3", ":memory:"], input="%s\n.mode json\n%s;\n" % (script, sql), capture_output=True, text=True, check=False)
    if proc.returncode != 0 or proc.stderr:
        raise RuntimeError("sqlite3 rejects a generated query (%s): %s" % (proc.stderr.strip(), sql))
    # .mode json keeps column order per object and types per value.
    rows = json.loads(proc.stdout, object_pairs_hook=lambda kv: [v for _, v in kv]) if proc.stdout.strip() else []
    return rows


def same_value(ref_cell, lite):
    if lite is None:
        return ref_cell == ""
    if isinstance(lite, (int, float)) and not isinstance(lite, bool):
        try:
            return abs(float(ref_cell) - float(lite)) <= 1e-12 * max(1.0, abs(float(lite)))
        except ValueError:
            return False
    return ref_cell == lite


def same_rows(a, b):
    return len(a) == len(b) and all(len(x) == len(y) and all(same_value(p, q) for p, q in zip(x, y)) for x, y in zip(a, b))


def classify(ref_rows, fwd, rev, q):
    """'ordered', 'unordered', 'dropped' (LIMIT cut through ties), or raise on a disagreement."""
    if same_rows(ref_rows, fwd) and same_rows(ref_rows, rev):
        return "ordered"
    if q.limit:
        return "dropped"
    # Compare as multisets: match every reference row with an unused SQLite row.
    for lite in (fwd, rev):
        pool = list(lite)
        for row in ref_rows:
            hit = next((i for i, x in enumerate(pool) if same_rows([row], [x])), None)
            if hit is None:
                raise RuntimeError("SQLite and the reference disagree on: %s\n  reference %s\n  sqlite    %s" % (q.sql, ref_rows, lite))
            pool.pop(hit)
        if pool:
            raise RuntimeError("SQLite returns more rows on: %s" % q.sql)
    return "unordered"


def yaml_str(s):
    return json.dumps(s, ensure_ascii=False)


class StaleData(Exception):
    """The committed data sets are not what the seed draws."""


def stale_data(files):
    at = lambda key: os.path.join(DATA_ROOT, key[0], key[1] + ".csv")  # noqa: E731
    return [k for k, body in files.items() if not os.path.exists(at(k)) or open(at(k), encoding="utf-8").read() != body]


def write_data(files):
    """files: {(data set, table): csv text}."""
    for (name, t), text in files.items():
        os.makedirs(os.path.join(DATA_ROOT, name), exist_ok=True)
        with open(os.path.join(DATA_ROOT, name, t + ".csv"), "w", encoding="utf-8", newline="") as f:
            f.write(text)


def drawn(rng, profile):
    """One query of `profile`, on the data set the profile's requirement may lean on."""
    PLAIN["on"], PLAIN["single_key"] = profile not in MESSY_PROFILES, profile != "R13"
    q = draw(rng, profile)
    q.data = "gen-plain" if PLAIN["on"] else "gen"
    PLAIN["on"] = PLAIN["single_key"] = False
    return q


def generate(check):
    rng = random.Random(SEED)
    tables = {name: gen_data(rng, name == "gen-plain") for name in DATA_SETS}
    files = {(name, t): csv_text([c for c, _ in TABLES[t]], rows) for name, data in tables.items() for t, rows in data.items()}
    if check and stale_data(files):
        # The reference reads the data from disk: on stale data it would disagree with SQLite.
        raise StaleData()
    if not check:
        # The reference reads the data set from disk, so it is written before any query runs.
        write_data(files)
    scripts = {name: (sqlite_script(data, False), sqlite_script(data, True)) for name, data in tables.items()}
    cases, seen = [], set()
    counts = {"drawn": 0, "ordered": 0, "unordered": 0, "dropped": 0, "repeated": 0, "null-column": 0, "empty": 0, "featureless": 0, "errors": 0, "sqlite-accepts": 0}
    numbers = {}
    for profile in PROFILES:
        kept, tries = 0, 0
        while kept < PER_PROFILE and tries < PER_PROFILE * 10:
            tries += 1
            q = drawn(rng, profile)
            counts["drawn"] += 1
            if q.sql in seen:
                counts["repeated"] += 1
                continue
            seen.add(q.sql)
            if not FEATURES.get(profile, lambda _: True)(q.sql):
                counts["featureless"] += 1
                continue
            ref_rows = run_reference(q.sql, q.data)
            if any(len(r) == 1 and r[0] == "" for r in ref_rows):
                # A one-column NULL prints as `""` (SPEC 6.3): that is R38's, an output requirement,
                # and a case of another requirement must not hinge on it.
                counts["null-column"] += 1
                continue
            if not ref_rows:
                # An empty result decides little here, and what it decides (a header alone, exit 0)
                # is the hand-written cases' to pin.
                counts["empty"] += 1
                continue
            fwd_script, rev_script = scripts[q.data]
            how = classify(ref_rows, run_sqlite(fwd_script, q.sql), run_sqlite(rev_script, q.sql), q)
            counts[how] += 1
            if how == "dropped":
                continue
            kept += 1
            numbers[q.req] = numbers.get(q.req, 0) + 1  # profiles R22x, R23x and R21o share a requirement's numbering
            cases.append((q, how, ref_rows, numbers[q.req]))
    kept = 0
    for i in range(PER_PROFILE * 2):
        base = drawn(rng, ERROR_BASES[i % len(ERROR_BASES)])
        bad = unknown_name(rng, base)
        counts["drawn"] += 1
        if bad is None or bad.sql in seen:
            counts["repeated"] += 1
            continue
        seen.add(bad.sql)
        bad.data = base.data
        fwd_script = scripts[base.data][0]
        run_reference(base.sql, base.data)  # the twin must succeed
        status = reference_status(bad.sql, base.data)
        if status != 3 or sqlite_accepts(fwd_script, bad.sql) or not sqlite_accepts(fwd_script, base.sql):
            raise RuntimeError("SQLite and the reference disagree on an unknown name: %s (reference exit %d)" % (bad.sql, status))
        kept += 1
        counts["errors"] += 1
        cases.append((bad, "error", base.sql, kept))
    # Lexical and syntax errors at the end of the text: a drawn query with a lexically significant
    # ending appended must exit 2, SQLite must reject it too, and the drawn query is its twin.
    kept = 0
    for i, ending in enumerate(ENDINGS * 2):
        base = drawn(rng, ERROR_BASES[i % len(ERROR_BASES)])
        bad = Q("R17", base.sql + ending)
        bad.data = base.data
        fwd_script = scripts[base.data][0]
        counts["drawn"] += 1
        if bad.sql in seen:
            counts["repeated"] += 1
            continue
        seen.add(bad.sql)
        run_reference(base.sql, base.data)
        status = reference_status(bad.sql, base.data)
        if status == 2 and sqlite_accepts(fwd_script, bad.sql):
            counts["sqlite-accepts"] += 1  # SQLite reads `5.` as a number; the spec does not
            continue
        if status != 2:
            raise RuntimeError("SQLite and the reference disagree on a malformed ending: %r (reference exit %d)" % (bad.sql, status))
        kept += 1
        counts["errors"] += 1
        cases.append((bad, "error", base.sql, kept))
    return files, cases, counts


# Endings that stop the lexer or parser at the very end of the text: a minus with no digit, a
# number followed by a point, a lone `!`, an open string, a comparator with no operand, a point.
ENDINGS = [" -", " 5.", " !", " '", " <", ".", " AND -", " LIMIT 5."]


def reference_status(sql, data):
    import contextlib

    with contextlib.redirect_stdout(io.TextIOWrapper(io.BytesIO(), encoding="utf-8")), contextlib.redirect_stderr(io.StringIO()):
        return reference_main(["--data", os.path.join(DATA_ROOT, data), "--format", "csv", sql])


def sqlite_accepts(script, sql):
    proc = subprocess.run(["sqlite3", "-bail", ":memory:"], input="%s\n%s;\n" % (script, sql), capture_output=True, text=True, check=False)
    return proc.returncode == 0 and not proc.stderr


def render(cases, counts):
    out = [
        "# GENERATED by `npm run cases:sqlcsv` (tests/support/sqlcsv_generate.py, seed %d): do not edit." % SEED,
        "# Queries drawn from the grammar of SPEC.md 4.1, one profile per requirement, over data sets `gen`",
        "# and `gen-plain` (drawn with the same seed); each kept only where SQLite 3 returns the same rows, run on",
        "# the rows as filed and reversed (`ordered: true` only when both orders and the reference agree).",
        "# Drawn %d, kept %d (%d ordered, %d in any order), dropped %d (LIMIT cuts through ties),"
        % (counts["drawn"], counts["ordered"] + counts["unordered"], counts["ordered"], counts["unordered"], counts["dropped"]),
        "# repeated %d, left out %d (a one-column result holding NULL: its CSV form is R38's), %d with an" % (counts["repeated"], counts["null-column"], counts["empty"]),
        "# empty result and %d without their requirement's feature (R24: AND beside OR; R25: NOT; R26: IS NULL or NOT; R27: DESC). A disagreement" % counts["featureless"],
        "# with SQLite fails the generator. Also %d error cases: unknown-name cases (one column name of a drawn query" % counts["errors"],
        "# made unknown: exit 3) and malformed-ending cases (a lexically significant ending appended: exit 2),",
        "# each rejected by SQLite too (%d endings SQLite accepts were left out), each with the drawn query" % counts["sqlite-accepts"],
        "# as its positive twin.",
    ]
    if "selected" in counts:
        out += [
            "# Then selected (tests/support/sqlcsv_select.py): %d dropped as not isolated (a hand-written mutant or a" % counts["not-isolated"],
            "# planted corpus defect fails them outside the requirements it records), %d failed by the corpus" % counts["corpus-fails"],
            "# without a defect. Of the %d isolated, %d are written here: the %d that kill %d of the %d automatic" % (counts["isolated"], counts["selected"], counts["selected-by-kills"], counts["killed-by-drawn"], counts["alive-before"]),
            "# mutants the hand-written cases let live (the fewest that kill them all, chosen greedily), and the",
            "# first isolated case of every requirement drawn.",
        ]
    out.append("")
    for q, how, rows, n in cases:
        if how == "error":
            kind, status = ("unknown", 3) if q.req == "R16" else ("malformed", 2)
            for cid, sql, expect in (("%s-generated-%s-%02d" % (q.req, kind, n), q.sql, ["    exit: %d" % status, '    stdout: ""']),
                                     ("%s-generated-%s-%02d-twin" % (q.req, kind, n), rows, ["    exit: 0", "    stderr: empty"])):
                out += ["- id: %s" % cid, "  req: %s" % q.req, "  data: %s" % q.data, '  args: ["--data", "{data}", "--format", "csv", %s]' % yaml_str(sql), "  expect:"]
                out += expect
                out += ['  sqlite: {skip: "exit-code case: the generator checked that SQLite rejects the query and accepts its twin"}', ""]
            continue
        out.append("- id: %s-generated-%02d" % (q.req, n))
        out.append("  req: %s" % q.req)
        out.append("  data: %s" % q.data)
        out.append('  args: ["--data", "{data}", "--format", "csv", %s]' % yaml_str(q.sql))
        out.append("  expect:")
        out.append("    exit: 0")
        out.append("    result:")
        if how == "unordered":
            out.append("      ordered: false")
        out.append("      rows: [%s]" % ", ".join("[%s]" % ", ".join(yaml_str(v) for v in r) for r in rows))
        out.append("  sqlite: same")
        out.append("")
    return "\n".join(out)


# ---- ids ---------------------------------------------------------------------------------
def case_ids(case):
    """The ids a drawn case is written under: one, or an error case and its twin."""
    q, how, _, n = case
    if how == "error":
        kind = "unknown" if q.req == "R16" else "malformed"
        base = "%s-generated-%s-%02d" % (q.req, kind, n)
        return [base, base + "-twin"]
    return ["%s-generated-%02d" % (q.req, n)]


def main():
    check = "--check" in sys.argv[1:]
    try:
        files, cases, counts = generate(check)
    except StaleData:
        print("generated sqlcsv data sets are stale: run `npm run cases:sqlcsv`", file=sys.stderr)
        return 1
    sys.path.insert(0, os.path.dirname(__file__))
    import yaml

    from sqlcsv_select import select

    units = [case_ids(c) for c in cases]
    keep = select(yaml.safe_load(render(cases, counts)), units, counts, lambda line: print(line, file=sys.stderr, flush=True))
    cases = [c for c, u in zip(cases, units) if u[0] in keep]
    text = render(cases, counts)
    if check:
        committed = open(CASES, encoding="utf-8").read() if os.path.exists(CASES) else ""
        if committed != text:
            print("generated sqlcsv cases are stale: run `npm run cases:sqlcsv`", file=sys.stderr)
            return 1
        print("generated sqlcsv cases match the seed (%d cases)" % len(cases))
        return 0
    with open(CASES, "w", encoding="utf-8") as f:
        f.write(text)
    print("wrote %d cases to %s: %s" % (len(cases), os.path.relpath(CASES, ROOT), json.dumps(counts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
