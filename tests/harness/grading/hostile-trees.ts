import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadSpecOracle, oracleDir } from '../../../harness/index.js';

/** Docker-backed gradings on a shared 2-core machine: generous, so noise never fails a test. */
export const DOCKER_TIMEOUT = 900_000;

const small = new Map<number, Promise<string>>();
const made: string[] = [];

/** A temporary folder removed by {@link removeScratch} (each file's afterAll): tests clean up what they make. */
export async function scratchDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder this module made in this file's worker (the small oracle's too). */
export async function removeScratch(): Promise<void> {
  // A hostile tree nested past PATH_MAX defeats fs.rm (ENAMETOOLONG); GNU rm walks it by descriptor.
  const remove = (dir: string) => rm(dir, { recursive: true, force: true }).catch(() => promisify(execFile)('rm', ['-rf', dir]));
  await Promise.all(made.splice(0).map(remove));
  small.clear();
}

/**
 * A copy of the oracle holding one case of every `every`-th requirement (default 4: 11 cases):
 * enough to show that a hostile tree earns nothing, at a fraction of a full grading's cost.
 */
export function smallOracle(every = 4): Promise<string> {
  const made = small.get(every);
  if (made) return made;
  const dir = (async () => {
    const { oracle } = await loadSpecOracle('sqlcsv');
    const dir = await scratchDir('rdh-small-oracle-');
    await cp(oracleDir('sqlcsv'), dir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
    await rm(path.join(dir, 'cases'), { recursive: true });
    await mkdir(path.join(dir, 'cases'));
    const picked = Object.values(oracle.requirementMap).filter((_, i) => i % every === 0).map((ids) => oracle.cases.find((c) => c.id === ids[0])!);
    await writeFile(path.join(dir, 'cases', 'small.yaml'), JSON.stringify(picked));
    return dir;
  })();
  small.set(every, dir);
  return dir;
}

export const REFERENCE = path.join(oracleDir('sqlcsv'), 'reference');

/**
 * For gradings whose every case must pass: a per-case limit far above the 3 s default, so a
 * noisy shared machine cannot fail a correct program. Hostile trees keep short limits.
 */
export const SLACK = { caseTimeoutMs: 20_000 } as const;

/** A tree made of the given files (path -> content). */
export async function tree(files: Record<string, string>): Promise<string> {
  const dir = await scratchDir('rdh-tree-');
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  }
  return dir;
}

/** A copy of the reference implementation with some files added or replaced. */
export async function referenceWith(files: Record<string, string>): Promise<string> {
  const dir = await scratchDir('rdh-ref-');
  await cp(REFERENCE, dir, { recursive: true, filter: (src) => !src.includes('__pycache__') });
  for (const [rel, content] of Object.entries(files)) await writeFile(path.join(dir, rel), content);
  return dir;
}

/**
 * Answers every case from a leaked copy of the expectations. The leak it looks for is the
 * one a root byte-compile before the deletion would make: `sqlcsv/leak*.py` linked to
 * expectations.json compiles (JSON is a Python expression) into a .pyc any user can read.
 * It evaluates that bytecode with the final POP_TOP turned into RETURN_VALUE.
 */
export const ANSWER_FROM_LEAKED_BYTECODE = `
import csv, dis, glob, io, json, marshal, os, re, sys
found = None
here = os.path.dirname(os.path.abspath(__file__))
for pyc in glob.glob(os.path.join(here, "__pycache__", "leak*.pyc")):
    try:
        code = marshal.loads(open(pyc, "rb").read()[16:])
        co = code.co_code
        i = co.rfind(bytes([dis.opmap["POP_TOP"], 0]))
        patched = code.replace(co_code=co[:i] + bytes([dis.opmap["RETURN_VALUE"], 0]) + co[i + 2:])
        found = eval(patched, {"true": True, "false": False, "null": None})
        break
    except Exception:
        pass
if not found:
    sys.exit(1)
argv = [re.sub(r"/grade/data/[A-Za-z0-9_]+", "{data}", a) for a in sys.argv[1:]]
for case in found["cases"]:
    args = [re.sub(r"/grade/data/[A-Za-z0-9_]+", "{data}", a) for a in case["args"]]
    if args != argv:
        continue
    exp = case["expect"]
    if exp["exit"] != 0:
        sys.stderr.write("error\\n")
    if "stdout" in exp:
        sys.stdout.write(exp["stdout"])
    elif "result" in exp or "rows" in exp:
        res = exp.get("result") or exp.get("rows")
        if "json" in " ".join(argv):
            sys.stdout.write(json.dumps([dict(zip(res["header"], r)) for r in res["rows"]]) + "\\n")
        else:
            out = io.StringIO()
            w = csv.writer(out, lineterminator="\\n")
            w.writerow(res["header"])
            w.writerows(res["rows"])
            sys.stdout.write(out.getvalue())
    sys.exit(exp["exit"])
sys.exit(1)
`;

/** Kills every process it may signal (Linux spares the caller), then behaves as the reference. */
export const KILL_EVERY_OTHER_CASE = `
import os, signal, time
try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
time.sleep(0.1)
`;
