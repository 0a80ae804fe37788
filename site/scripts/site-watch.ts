import { spawn } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Report, SECRET_SHAPES, runPaths } from '../../harness/run-files.js';
import { watchFolder, type FolderWatch } from './folder-watch.js';
import { RunSnapshot, SETTLED } from './live-snapshot.js';
// make-site.ts calls this module and hands it its steps, typed in a module of their own: the two never import each other.
import type { Io, MakeSiteOptions, SiteSteps } from './site-options.js';
import { RebuildQueue } from './rebuild-queue.js';
import { ListenError, serveStatic, type StaticServer } from './static-server.js';

/**
 * `make_site.sh --watch runs/NAME`: follow a sweep while `harness record` writes it. Each change
 * in the run folder (debounced, one build at a time, see RebuildQueue) refreshes a private copy
 * of the run (RunSnapshot), builds its report from the journal as it stands with `harness
 * report` run on that copy, then stages it through make_site's own allowlist and secret scan
 * (stageRuns) and builds the site (buildSite), served on 127.0.0.1 with a meta refresh in every
 * page. A refused or failed rebuild prints why and leaves the last good site served.
 *
 * Why a copy and not `harness report` on the run itself: it replaces `<run>/report/` whole,
 * which is the recording's own output (record writes it when the sweep ends, and two writers
 * renaming one folder can make the recorder's fail), and the watch never writes the run folder.
 * The copy, the staged data and the served site live in one scratch folder removed on exit.
 */

/** What the watch adds to make_site's options. */
export interface WatchOptions {
  /** The port on 127.0.0.1 (make_site's --port, default 4321); 0 takes any free one. */
  port: number;
  /** Quiet time after the last change before a rebuild. Default 2000 ms. */
  debounceMs?: number;
  /** Every page reloads itself after this many seconds. Default 10. */
  refreshSeconds?: number;
  /** Aborting it stops the watch, as Ctrl-C does. Default: SIGINT and SIGTERM of this process. */
  signal?: AbortSignal;
}

export const WATCH_DEFAULTS = { debounceMs: 2000, refreshSeconds: 10 } as const;

export type { SiteSteps } from './site-options.js';

/** A run the watch cannot follow, or a port it cannot take: one line, exit 2 (make_site's bad input). */
export class WatchInputError extends Error {
  readonly code = 'watch_input';
  readonly exitCode = 2;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

const clock = () => `${new Date().toISOString().slice(11, 19)} UTC`;

/** The page served before the first build and for a page not built yet: it reloads itself too. */
function waitingPage(refresh: number, run: string, base: string, what: string): string {
  const safe = (t: string) => t.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="${refresh}"><meta name="color-scheme" content="light dark"><title>${safe(run)}: not built yet</title></head><body><main><h1>${safe(run)}</h1><p>${safe(what)} This page reloads every ${refresh} s.</p><p><a href="${safe(base)}">Results</a></p></main></body></html>\n`;
}

/** The run folder the watch follows: it must exist and hold a journal, or the user named the wrong thing. */
async function checkRun(options: MakeSiteOptions, env: NodeJS.ProcessEnv): Promise<{ dir: string; name: string; shownAs: string }> {
  // make_site reads these at each build; a wrong path is said now, not once the first cell is measured.
  for (const file of [...options.providers, ...(env.RDH_PROVIDERS ? [env.RDH_PROVIDERS] : [])]) {
    if (!(await lstat(file).then((s) => s.isFile(), () => false))) throw new WatchInputError(`provider configuration ${file}: not a readable file; fix the path (--providers or RDH_PROVIDERS)`);
  }
  if (options.runs.length !== 1) throw new WatchInputError(`--watch follows one run: name it, e.g. ./make_site.sh --watch runs/NAME${options.runs.length > 1 ? ` (${options.runs.length} were named)` : ''}`);
  const shownAs = options.runs[0]!.replace(/\/+$/, '');
  const dir = path.resolve(options.runs[0]!);
  const info = await lstat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new WatchInputError(`${shownAs}: no such run folder; start the sweep first (harness record ... --out ${shownAs}) or fix the path`);
  // make_site's own rule for a run's name (chooseRuns), said before anything is served rather than at the first build.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(path.basename(dir))) throw new WatchInputError(`${shownAs}: the folder name is not safe in a URL (letters, digits, ".", "_" and "-", starting with a letter or digit); rename the folder`);
  const hasJournal = await lstat(runPaths(dir).journal).then((s) => s.isFile(), () => false);
  if (!hasJournal) throw new WatchInputError(`${shownAs}: holds no journal.jsonl, so it is not a run folder written by harness record (runs/NAME)`);
  return { dir, name: path.basename(dir), shownAs };
}

/** `harness report` on the copy; its own messages (redacted) when it refuses. */
function harnessReport(runDir: string, signal: AbortSignal): Promise<{ ok: boolean; message: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(REPO, 'harness', 'bin.js'), 'report', runDir], { cwd: REPO, signal, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
    child.on('error', (error) => resolve({ ok: false, message: error.message }));
    child.on('close', (code) => resolve({ ok: code === 0, message: SECRET_SHAPES.redact(stderr.trim().split('\n').filter(Boolean).slice(-3).join(' ')) }));
  });
}

async function settledCells(runDir: string): Promise<Set<string>> {
  const report = Report.parse(JSON.parse(await readFile(path.join(runPaths(runDir).report, 'report.json'), 'utf8')));
  return new Set(report.cells.filter((c) => SETTLED.has(c.status)).map((c) => c.id));
}

/** Follows the one run of `options` until stopped; 0 then, 2 (one line) for a run it cannot follow or a port it cannot take. */
export async function watchSite(options: MakeSiteOptions, watchOptions: WatchOptions, steps: SiteSteps, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    return await follow(options, watchOptions, steps, io, env);
  } catch (error) {
    if (!(error instanceof WatchInputError)) throw error;
    io.err(`make_site: ${error.message}`);
    return error.exitCode;
  }
}

async function follow(options: MakeSiteOptions, watchOptions: WatchOptions, steps: SiteSteps, io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const run = await checkRun(options, env);
  const refresh = watchOptions.refreshSeconds ?? WATCH_DEFAULTS.refreshSeconds;
  const scratch = await mkdtemp(path.join(tmpdir(), 'rdh-site-watch-'));
  const site = path.join(scratch, 'site');
  const copy = path.join(scratch, 'runs', run.name);
  const stop = new AbortController();
  let exitCode = 0;
  /** Ends the watch with `code`: bad input found at a build (a provider configuration). */
  const fail = (code: number) => {
    exitCode = code;
    stop.abort();
  };
  const tell = (line: string) => io.err(`make_site --watch: ${line}`);
  let server: StaticServer | undefined;
  let watcher: FolderWatch | undefined;
  let queue: RebuildQueue | undefined;
  try {
    await mkdir(site, { recursive: true });
    await writeFile(path.join(site, 'index.html'), waitingPage(refresh, run.name, options.base, 'No cell of this run is measured yet, so there is no page to show.'));
    server = await serveStatic(site, options.base, { port: watchOptions.port, notFound: waitingPage(refresh, run.name, options.base, 'This page is not built (yet): a cell gets its pages once it is measured.') }).catch((error: unknown) => {
      if (error instanceof ListenError) throw new WatchInputError(`${error.message}; choose another with --port N`);
      throw error;
    });
    io.out(`make_site --watch: following ${run.shownAs}; serving ${server.url} (Ctrl-C stops; scratch ${scratch}, removed on exit)`);
    const rebuild = rebuilder({ options, steps, io, env, run, copy, site, refresh, url: server.url, signal: stop.signal, fail });
    queue = new RebuildQueue(rebuild, { debounceMs: watchOptions.debounceMs ?? WATCH_DEFAULTS.debounceMs });
    const q = queue;
    // A pair's workspaces and a graded tree kept with --keep-workspaces churn all sweep long and are never published.
    watcher = watchFolder(run.dir, () => q.changed(), tell, { ignore: (file) => /^cells\/[^/]+\/(?:work|tree)(?:\/|$)/.test(file) });
    q.changed();
    await stopped(stop, watchOptions.signal, tell);
    return exitCode;
  } finally {
    watcher?.close();
    stop.abort();
    await queue?.close();
    await server?.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Resolves on the first Ctrl-C or SIGTERM (or the caller's signal, or bad input found at a build).
 * A second Ctrl-C during the wind-down (a build under way is let finish, so it cleans its own
 * folder) exits at once, 130; but not one within a second of the first: make_site.sh runs under
 * tsx, whose parent passes on a Ctrl-C the child was sent already when the child is slow to say
 * so, and one key press must not skip the clean-up.
 */
function stopped(stop: AbortController, external: AbortSignal | undefined, tell: (line: string) => void): Promise<void> {
  return new Promise((resolve) => {
    let at: number | undefined;
    const onSignal = () => {
      if (at === undefined) return done();
      if (Date.now() - at > SAME_KEY_PRESS_MS) process.exit(130);
    };
    const done = () => {
      if (at !== undefined) return;
      at = Date.now();
      tell('stopping: the server closes and the scratch folder is removed');
      resolve();
    };
    if (external?.aborted || stop.signal.aborted) return done();
    external?.addEventListener('abort', done, { once: true });
    stop.signal.addEventListener('abort', done, { once: true });
    if (!external) {
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
    }
  });
}

/** Signals this close to the first are the same Ctrl-C, passed on twice. */
const SAME_KEY_PRESS_MS = 1000;

interface RebuildContext {
  options: MakeSiteOptions;
  steps: SiteSteps;
  io: Io;
  env: NodeJS.ProcessEnv;
  run: { dir: string; name: string; shownAs: string };
  copy: string;
  site: string;
  refresh: number;
  url: string;
  signal: AbortSignal;
  fail(code: number): void;
}

/** One rebuild: refresh the copy, rebuild its report, and when anything published changed, scan, stage and build. */
function rebuilder(c: RebuildContext): () => Promise<void> {
  const snapshot = new RunSnapshot(c.run.dir, c.copy);
  const tell = (line: string) => c.io.err(`make_site --watch: ${line}`);
  // make_site's messages name the copy; the user knows the run by its own path.
  const shown = (line: string) => line.split(c.copy).join(c.run.shownAs);
  let lastReport = '';
  let pending = true;
  let built = 0;
  let lastGood = '';
  return async () => {
    if (c.signal.aborted) return;
    try {
      if (await snapshot.syncInputs()) {
        const report = await harnessReport(c.copy, c.signal);
        if (!report.ok) {
          if (c.signal.aborted) return;
          if (report.message !== lastReport) tell(`no report yet: ${shown(report.message)}`);
          lastReport = report.message;
          return;
        }
        lastReport = '';
      }
      if (!(await lstat(path.join(c.copy, 'report', 'report.json')).then(() => true, () => false))) return;
      const changed = [await snapshot.reportChanged(), await snapshot.syncPublished(await settledCells(c.copy))].some(Boolean);
      pending ||= changed;
      if (!pending || c.signal.aborted) return;
      pending = false;
      // The first build says what make_site scans for and leaves out; later ones only what went wrong.
      const io: Io = { out: (l) => (built === 0 ? c.io.out(shown(l)) : undefined), err: (l) => c.io.err(shown(l)) };
      const options: MakeSiteOptions = { ...c.options, runs: [c.copy], data: path.join(path.dirname(c.site), 'data'), out: c.site, stageOnly: false };
      await c.steps.stageRuns(options, io, c.env);
      await c.steps.buildSite(options, io, { ...c.env, RDH_SITE_REFRESH: String(c.refresh) });
      built++;
      lastGood = clock();
      const report = Report.parse(JSON.parse(await readFile(path.join(c.copy, 'report', 'report.json'), 'utf8')));
      c.io.out(`make_site --watch: rebuilt at ${lastGood}: ${report.counts.cells.measured} of ${report.counts.cells.design} cells measured; ${c.url}`);
    } catch (error) {
      if (c.signal.aborted) return;
      const still = lastGood ? `still serving the build of ${lastGood}` : 'nothing is served but the waiting page';
      // make_site's refusals (a secret, a failed build) carry its exit code and a message without any value.
      const code = error instanceof Error ? (error as { exitCode?: unknown }).exitCode : undefined;
      const message = error instanceof Error ? shown(error.message.replace(/^make_site: /, '')) : '';
      // Bad input (2: a provider configuration that cannot be read) does not mend by waiting for the sweep.
      if (code === 2) {
        c.io.err(`make_site: ${message}`);
        c.fail(2);
      } else if (typeof code === 'number') tell(`${message} (${still}; the next change in the run folder rebuilds)`);
      else tell(SECRET_SHAPES.redact(`the rebuild failed (a bug; please report it): ${(error as Error).stack ?? String(error)} (${still})`));
    }
  };
}
