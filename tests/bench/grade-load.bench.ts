import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { gradeTree, oracleDir, type GradeResult } from '../../harness/index.js';

/**
 * `npm run bench -- grade-load [runs] [task ...]`: the machine's load does not move a grade.
 * Each task's reference and a slow but correct tree are graded `runs` times (default 5) in fork
 * and exec mode, with the machine as it is and with a CPU hog on every core (busy loops this
 * command starts before the grading and stops after it, each also bounded in time by itself).
 * Every grading of one tree in one mode must satisfy the very same requirements: the verdict is
 * `identical` or FAIL. Re-runs alone (runner.py) are what make it hold; their count is printed.
 *
 * The slow trees are real third-party code no one here wrote: Debian's python3-markdown-it
 * (markdown-it-py 2.1, pure Python) vendored behind the entry point the task expects. For
 * commonmark it is the converter (`mdlite` over markdown-it-py); for sqlcsv it is the reference
 * with markdown-it-py imported and a parser built at start, the cost every forked case pays.
 */
const DIST = '/usr/lib/python3/dist-packages';
const VENDORED = ['markdown_it', 'mdurl'];
/** A hog loop stops by itself after this long, should this command die without stopping it. */
const HOG_MAX_MS = 30 * 60_000;

type Mode = 'fork' | 'exec';
interface Row {
  task: string;
  tree: string;
  mode: Mode;
  load: 'none' | 'hog';
  satisfied: string[];
  score: string;
  reruns: number;
  rerunsPassed: number;
  seconds: number;
}

async function vendor(into: string): Promise<void> {
  for (const name of VENDORED) {
    const from = path.join(DIST, name);
    if (!(await stat(from).catch(() => null))) throw new Error(`${from} is missing: install Debian's python3-markdown-it (apt-get install python3-markdown-it)`);
    await cp(from, path.join(into, name), { recursive: true, filter: (src) => !src.includes('__pycache__') });
  }
}

/** The slow but correct tree of a task, built in a fresh temporary folder. */
export async function slowTree(task: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `rdh-slow-${task}-`));
  await vendor(dir);
  if (task === 'commonmark') {
    await mkdir(path.join(dir, 'mdlite'));
    await writeFile(path.join(dir, 'mdlite', '__init__.py'), '"""mdlite as an entry point over the vendored markdown-it-py 2.1 (Debian python3-markdown-it)."""\n');
    await writeFile(path.join(dir, 'mdlite', '__main__.py'), 'import sys\n\nfrom markdown_it import MarkdownIt\n\nsys.stdout.write(MarkdownIt("commonmark").render(sys.stdin.buffer.read().decode("utf-8", errors="replace")))\n');
  } else if (task === 'sqlcsv') {
    await cp(path.join(oracleDir('sqlcsv'), 'reference', 'sqlcsv'), path.join(dir, 'sqlcsv'), { recursive: true, filter: (src) => !src.includes('__pycache__') });
    await writeFile(path.join(dir, 'sqlcsv', '__main__.py'), '"""Entry point for `python3 -m sqlcsv`; builds a Markdown parser first, as a tree rendering help text might."""\n\nimport sys\n\nfrom markdown_it import MarkdownIt\n\nfrom sqlcsv.cli import main\n\nMarkdownIt("commonmark")\nsys.exit(main(sys.argv[1:]))\n');
  } else throw new Error(`no slow tree for task ${task}`);
  return dir;
}

/** One busy loop per core, started now; `stop()` ends them (each also ends by itself after HOG_MAX_MS). */
export function startHog(): { stop: () => Promise<void> } {
  const loops: ChildProcess[] = cpus().map(() =>
    spawn(process.execPath, ['-e', `const end = Date.now() + ${HOG_MAX_MS}; while (Date.now() < end) {}`], { stdio: 'ignore' }),
  );
  return {
    stop: async () => {
      await Promise.all(loops.map((p) => new Promise<void>((resolve) => {
        if (p.exitCode !== null || p.signalCode !== null) return resolve();
        p.once('exit', () => resolve());
        p.kill('SIGKILL');
      })));
    },
  };
}

function row(task: string, tree: string, mode: Mode, load: Row['load'], g: GradeResult, ms: number): Row {
  const reruns = g.reruns ?? [];
  return {
    task, tree, mode, load,
    satisfied: g.requirements.filter((r) => r.pass).map((r) => r.id),
    score: `${g.satisfied}/${g.total}`,
    reruns: reruns.length,
    rerunsPassed: reruns.filter((r) => r.outcome === 'passed').length,
    seconds: ms / 1000,
  };
}

export async function gradeLoadBench(o: { runs: number; tasks: string[]; modes?: Mode[]; trees?: string[] }): Promise<{ lines: string[]; ok: boolean }> {
  const rows: Row[] = [];
  const modes = o.modes ?? ['fork', 'exec'];
  const lines: string[] = [`grade under load: ${o.runs} run(s) each, ${cpus().length} hog loop(s) when loaded, the default 3 s per case`];
  let ok = true;
  for (const task of o.tasks) {
    const trees: [string, string][] = [['reference', path.join(oracleDir(task), 'reference')], ['slow (vendored markdown-it-py)', await slowTree(task)]];
    for (const [name, tree] of trees.filter(([n]) => !o.trees || o.trees.some((t) => n.startsWith(t)))) {
      for (const mode of modes) {
        const mine: Row[] = [];
        for (let i = 0; i < o.runs; i++) {
          for (const load of ['none', 'hog'] as const) {
            const hog = load === 'hog' ? startHog() : undefined;
            const started = performance.now();
            try {
              const g = await gradeTree({ spec: task, tree, mode, runId: 'bench-grade-load' });
              mine.push(row(task, name, mode, load, g, performance.now() - started));
            } finally {
              await hog?.stop();
            }
            const last = mine.at(-1)!;
            console.error(`${task} ${name} ${mode} ${load} #${i + 1}: ${last.score}, ${last.reruns} re-run(s) (${last.rerunsPassed} passed), ${last.seconds.toFixed(0)} s`);
          }
        }
        const sets = new Set(mine.map((r) => r.satisfied.join(',')));
        const same = sets.size === 1;
        ok &&= same;
        const per = (load: Row['load']) => mine.filter((r) => r.load === load);
        const describe = (rs: Row[]) => `${rs.map((r) => r.score).join(' ')}; re-runs ${rs.map((r) => `${r.reruns}/${r.rerunsPassed}`).join(' ')}; ${rs.map((r) => r.seconds.toFixed(0)).join(' ')} s`;
        lines.push(`${task.padEnd(10)} ${name.padEnd(30)} ${mode.padEnd(4)}  idle: ${describe(per('none'))}  |  hog: ${describe(per('hog'))}  ->  ${same ? 'identical' : `FAIL (${sets.size} different sets)`}`);
        rows.push(...mine);
      }
    }
    await Promise.all(trees.slice(1).map(([, t]) => rm(t, { recursive: true, force: true })));
  }
  lines.push('re-runs: cases run again alone after running out of wall-clock time / of those, passed');
  return { lines, ok };
}
