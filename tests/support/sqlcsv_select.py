"""Which drawn sqlcsv cases are worth grading: isolated ones that kill what the others miss.

Called by sqlcsv_generate.py (`npm run cases:sqlcsv`) on its drawn cases, before they are written:

1. Isolation, on the evidence at hand. A case decides one requirement, so a bug of another
   requirement must not fail it. Every hand-written mutant of oracle/sqlcsv/mutants.yaml and
   every planted defect of the SIMULATED corpus (harness/sim/corpus/sqlcsv/defects.yaml) records
   the requirements it breaks. A drawn case that one of them fails outside those is dropped, as is
   a case the corpus without a defect fails. This is `harness task check`'s own rule
   (mutants-exact and isolation), applied before the case exists, so neither the recorded
   cascades nor the SIMULATED population's truth move.
2. Selection by kills. The automatic mutants of the reference (sqlcsv_mutants.py) that the other
   cases let live are graded on the isolated drawn cases. The fewest that kill them all are kept,
   greedily (most new kills first, ties in drawing order), plus the first isolated case of every
   requirement, so each profile stays cross-checked against SQLite on every `npm test`. A drawn
   case that kills nothing new costs grading time and adds no power.
"""

import os

import yaml

import sqlcsv_mutants as M

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CORPUS = os.path.join(ROOT, "harness", "sim", "corpus", "sqlcsv")


def quiet(*_):
    pass


def not_isolated(req_of, counts, progress):
    """Ids of the cases (set with M.set_cases) that a bug of another requirement fails."""
    corpus_pkg = os.path.join(CORPUS, "sqlcsv")
    progress("isolation: the corpus without a defect")
    dropped = set()
    for failing in M.grade_batch([("corpus", {})], quiet, every=True, package=corpus_pkg).values():
        dropped.update(filter(None, failing.split(",")))
    counts["corpus-fails"] = len(dropped)
    hand = yaml.safe_load(open(os.path.join(ROOT, "oracle", "sqlcsv", "mutants.yaml"), encoding="utf-8"))
    defects = yaml.safe_load(open(os.path.join(CORPUS, "defects.yaml"), encoding="utf-8"))
    breaks = {m["id"]: set(m["breaks"]) for m in hand + defects}
    progress("isolation: %d hand-written mutants" % len(hand))
    found = M.grade_batch(M.hand_batch(hand), quiet, every=True)
    progress("isolation: %d planted corpus defects" % len(defects))
    found.update(M.grade_batch([(d["id"], M.patched(corpus_pkg, [d])) for d in defects], quiet, every=True, package=corpus_pkg))
    leaking = {cid for who, failing in found.items() for cid in filter(None, failing.split(",")) if req_of[cid] not in breaks[who]}
    counts["not-isolated"] = len(leaking - dropped)
    return dropped | leaking


def kill_cover(units, by_id, counts, progress):
    """First ids of the fewest units that kill every automatic mutant the hand-written cases miss."""
    M.set_cases(M.read_cases(without={"generated.yaml"}))
    mutants = M.enumerate_mutants()
    progress("selection: %d automatic mutants on the hand-written cases" % len(mutants))
    first = M.grade_batch(mutants, quiet)
    alive = [m for m in mutants if not first.get(m[0])]
    M.set_cases([by_id[i] for u in units for i in u])
    progress("selection: %d surviving mutants on %d isolated drawn cases" % (len(alive), len(units)))
    unit_of = {i: u[0] for u in units for i in u}
    kills = {u[0]: set() for u in units}
    for mutant, failing in M.grade_batch(alive, quiet, every=True).items():
        for cid in filter(None, failing.split(",")):
            kills[unit_of[cid]].add(mutant)
    chosen, covered = [], set()
    while True:
        best = max(units, key=lambda u: (len(kills[u[0]] - covered), -units.index(u)))
        gain = kills[best[0]] - covered
        if not gain:
            break
        chosen.append(best[0])
        covered |= gain
    counts.update({"alive-before": len(alive), "killed-by-drawn": len(covered), "selected-by-kills": len(chosen)})
    return chosen


def select(rendered, units, counts, progress):
    """The first ids of the units to keep. `rendered`: every drawn case as a case dict; `units`:
    the ids of each drawn case in drawing order (one, or an error case and its twin)."""
    by_id = {c["id"]: c for c in rendered}
    req_of = {c["id"]: c["req"] for c in rendered}
    M.set_cases([by_id[i] for u in units for i in u])
    dropped = not_isolated(req_of, counts, progress)
    isolated = [u for u in units if not any(i in dropped for i in u)]
    counts["isolated"] = len(isolated)
    firsts = {}
    for u in isolated:
        firsts.setdefault(req_of[u[0]], u[0])
    keep = set(kill_cover(isolated, by_id, counts, progress)) | set(firsts.values())
    counts["selected"] = len(keep)
    return keep
