import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { SECRET_SHAPES } from '../../harness/run-files.js';
import { admitted, skippedWhole, type FileKind } from './allowlist.js';
import { scanOutput } from './scan-output.js';
import { formatOf } from './scan-views.js';
import { printHits, refusalMessage, type ScanHit } from './scan-report.js';
import { SecretScanner, knownKeys } from './secret-scan.js';
import { watchSite } from './site-watch.js';
import type { Io, MakeSiteOptions } from './site-options.js';

export type { Io, MakeSiteOptions } from './site-options.js';
import { repositoryOf } from '../src/lib/reproduce-steps.js';
import { publishTexts } from '../src/lib/published-texts.js';

/**
 * make_site.sh: stage the chosen runs through the allowlist, scan every staged file for
 * secrets BEFORE anything is copied, then build the static site with `astro build`.
 *
 * Nothing is published unless everything passed: the data folder is replaced only after the
 * scan found nothing, and the output folder only after the build succeeded, each by a rename,
 * so a refused or failed build leaves the previous site (if any) as it was.
 */

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SITE = path.join(REPO, 'site');
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** make_site's exit codes (README, "The results site"). */
export const EXIT = { ok: 0, bug: 1, usage: 2, secret: 3, build: 4 } as const;

export class MakeSiteError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

/** The watch's default port (Astro's own, so a reader's habit finds it). */
const WATCH_PORT = 4321;

const USAGE = `usage: ./make_site.sh [--base /path/] [--providers FILE]... [--out DIR] [--stage-only] [runs/NAME ...]
       ./make_site.sh --watch [--port N] [--base /path/] [--providers FILE]... runs/NAME

Builds the results site (default site/dist/) from the chosen runs (default: every run under
runs/ that has a report). Only files on the allowlist are published: report/report.json,
report/charts/*.svg, and each cell's result.json, grade.json, events.jsonl and transcripts.
Every one of them is scanned for secrets first; on a hit nothing is published.

  --base /path/      serve the site under a sub-path (default /)
  --providers FILE   also search for the keys this provider configuration names in api_key_env
                     (RDH_PROVIDERS and manifests/*.yaml are always read)
  --out DIR          write the site here (default site/dist)
  --data DIR         stage the run files here (default site/data)
  --stage-only       stage and scan, do not build
  --watch            follow runs/NAME while harness record writes it: rebuild its pages (from a
                     report of the journal as it stands, the secret scan every time) 2 s after
                     each change, and serve them on 127.0.0.1 with a meta refresh until Ctrl-C.
                     Nothing is written into the run folder or site/dist; a refused rebuild
                     keeps the last good site served
  --port N           the watch's port on 127.0.0.1 (default ${WATCH_PORT}; 0 takes a free one)

exit codes: 0 built (or the watch stopped by Ctrl-C), 1 a bug, 2 bad input (a flag, a run
folder, a provider configuration, a port in use), 3 a secret was found (nothing published),
4 the site build failed (a run file does not match the harness's schemas; the message names it).
Under --watch a secret or a failed build is printed and the last good site stays served.`;

export function parseArgs(argv: readonly string[]): MakeSiteOptions | 'help' {
  const options: MakeSiteOptions = { runs: [], base: '/', providers: [], out: path.join(SITE, 'dist'), data: path.join(SITE, 'data'), stageOnly: false };
  let watch = false;
  let port: number | undefined;
  const placed: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new MakeSiteError(`${arg} needs a value; see ./make_site.sh --help`, EXIT.usage);
      return v;
    };
    if (arg === '--help' || arg === '-h') return 'help';
    else if (arg === '--base') {
      const base = value();
      if (!/^\/(?:[A-Za-z0-9._~-]+\/)*$/.test(base)) throw new MakeSiteError(`--base ${JSON.stringify(base)}: give a path that starts and ends with "/", e.g. --base /results/`, EXIT.usage);
      options.base = base;
    } else if (arg === '--providers') options.providers.push(value());
    else if (arg === '--out') {
      options.out = path.resolve(value());
      placed.push(arg);
    } else if (arg === '--data') {
      options.data = path.resolve(value());
      placed.push(arg);
    } else if (arg === '--stage-only') {
      options.stageOnly = true;
      placed.push(arg);
    } else if (arg === '--watch') watch = true;
    else if (arg === '--port') port = portOf(value());
    else if (arg.startsWith('-')) throw new MakeSiteError(`unknown option ${arg}; see ./make_site.sh --help`, EXIT.usage);
    else options.runs.push(arg);
  }
  if (!watch) {
    if (port !== undefined) throw new MakeSiteError('--port is for --watch; see ./make_site.sh --help', EXIT.usage);
    return options;
  }
  // The watch builds into a scratch folder it removes on exit: a site with a refresh in every page is never published.
  if (placed.length) throw new MakeSiteError(`--watch builds into a scratch folder of its own, so ${placed.join(' and ')} does not apply; build the site to publish without --watch`, EXIT.usage);
  return { ...options, watch: { port: port ?? WATCH_PORT } };
}

function portOf(text: string): number {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 65535) throw new MakeSiteError(`--port ${JSON.stringify(text.slice(0, 20))}: give a port from 0 to 65535 (0 takes a free one)`, EXIT.usage);
  return Number(text);
}

interface StagedFile {
  run: string;
  relative: string;
  source: string;
  kind: FileKind;
  sha256: string;
}

interface RunChoice {
  name: string;
  dir: string;
  shownAs: string;
}

async function isDirectory(p: string): Promise<boolean> {
  return lstat(p).then((s) => s.isDirectory(), () => false);
}

/** The runs to publish: the named ones (each must be a run with a report), or every run under runs/ that has one. */
async function chooseRuns(named: readonly string[], io: Io): Promise<RunChoice[]> {
  const choices: RunChoice[] = [];
  const add = async (dir: string, shownAs: string, explicit: boolean): Promise<void> => {
    const name = path.basename(path.resolve(dir));
    if (!(await isDirectory(dir))) throw new MakeSiteError(`${shownAs}: not a folder; name run folders such as runs/NAME`, EXIT.usage);
    if (!SAFE_NAME.test(name)) throw new MakeSiteError(`${shownAs}: the folder name is not safe in a URL (letters, digits, ".", "_" and "-", starting with a letter or digit); rename the folder`, EXIT.usage);
    const hasReport = await lstat(path.join(dir, 'report', 'report.json')).then((s) => s.isFile(), () => false);
    if (!hasReport) {
      const fix = `build it with: npm run harness -- report ${shownAs}`;
      if (explicit) throw new MakeSiteError(`${shownAs} has no report/report.json; ${fix}`, EXIT.usage);
      io.err(`make_site: skipping ${shownAs}: it has no report/report.json (${fix})`);
      return;
    }
    if (choices.some((c) => c.name === name)) throw new MakeSiteError(`${shownAs}: two runs are named ${name}; a site holds one run of each name`, EXIT.usage);
    choices.push({ name, dir: path.resolve(dir), shownAs });
  };
  if (named.length > 0) {
    for (const run of named) await add(run, run.replace(/\/+$/, ''), true);
    return choices;
  }
  const runsDir = path.join(REPO, 'runs');
  const entries = await readdir(runsDir, { withFileTypes: true }).catch(() => []);
  for (const e of entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).sort((a, b) => a.name.localeCompare(b.name))) {
    await add(path.join(runsDir, e.name), `runs/${e.name}`, false);
  }
  return choices;
}

/** Every file of a run, sorted: admitted ones with their kind, the rest reported as skipped. */
async function walk(run: RunChoice, io: Io): Promise<Array<Omit<StagedFile, 'sha256'>>> {
  const files: Array<Omit<StagedFile, 'sha256'>> = [];
  const skipped: string[] = [];
  const visit = async (relative: string): Promise<void> => {
    const entries = await readdir(path.join(run.dir, relative), { withFileTypes: true });
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const rel = relative ? `${relative}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (skippedWhole(rel)) skipped.push(`${rel}/ (a graded tree)`);
        else await visit(rel);
      } else if (!e.isFile()) skipped.push(`${rel} (${e.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'})`);
      else {
        const kind = admitted(rel);
        if (kind) files.push({ run: run.name, relative: rel, source: path.join(run.dir, rel), kind });
        else skipped.push(rel);
      }
    }
  };
  await visit('');
  if (skipped.length) io.out(`make_site: ${run.shownAs}: not on the allowlist, not published: ${skipped.join(', ')}`);
  return files;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a file as text, refusing anything that is not UTF-8 without NUL bytes (a scan could not see into it). */
function asText(bytes: Buffer, shownAs: string): string {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new MakeSiteError(`${shownAs}: not UTF-8 text, so it cannot be scanned for secrets; nothing was published`, EXIT.secret);
  }
  if (text.includes('\u0000')) throw new MakeSiteError(`${shownAs}: holds NUL bytes, so it cannot be scanned for secrets; nothing was published`, EXIT.secret);
  return text;
}

/** Provider configurations to read key names from: the flags, $RDH_PROVIDERS, and manifests/*.yaml that name an api_key_env. */
async function providerFiles(flags: readonly string[], env: NodeJS.ProcessEnv): Promise<string[]> {
  const files: string[] = [];
  for (const file of [...flags, ...(env.RDH_PROVIDERS ? [env.RDH_PROVIDERS] : [])]) {
    const ok = await lstat(file).then((s) => s.isFile(), () => false);
    if (!ok) throw new MakeSiteError(`provider configuration ${file}: not a readable file; fix the path (--providers or RDH_PROVIDERS)`, EXIT.usage);
    files.push(file);
  }
  const manifests = path.join(REPO, 'manifests');
  for (const name of (await readdir(manifests).catch(() => [] as string[])).filter((n) => /\.ya?ml$/.test(n)).sort()) {
    const file = path.join(manifests, name);
    if ((await readFile(file, 'utf8')).includes('api_key_env')) files.push(file);
  }
  return files;
}

/** The scanner for this machine: the configured keys' values (from the provider configurations and the environment) and every known format. */
async function secretScanner(providers: readonly string[], env: NodeJS.ProcessEnv) {
  const known = await knownKeys(await providerFiles(providers, env), env);
  return { known, scanner: new SecretScanner(known.keys) };
}

export async function stageRuns(options: MakeSiteOptions, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<{ runs: RunChoice[]; files: number }> {
  const runs = await chooseRuns(options.runs, io);
  const { known, scanner } = await secretScanner(options.providers, env);
  if (known.tooShort.length) io.err(`make_site: not searched for (shorter than 8 characters, or one plain word: it would match ordinary text): the values of ${known.tooShort.join(', ')}`);
  io.out(`make_site: scanning for the values of ${known.keys.length ? known.keys.map((k) => k.name).join(', ') : 'no configured key (none is set here)'} and every known key format`);
  // Every line printed while staging names files a run holds: none may echo a secret in a name.
  const safe: Io = { out: (l) => io.out(scanner.redactPaths(l)), err: (l) => io.err(scanner.redactPaths(l)) };
  let files: StagedFile[] = [];
  const hits: ScanHit[] = [];
  try {
    const listed: Array<{ file: Omit<StagedFile, 'sha256'>; shownAs: string }> = [];
    for (const run of runs) for (const file of await walk(run, safe)) listed.push({ file, shownAs: `${run.shownAs}/${file.relative}` });
    const scanned = await inOrder(listed, async ({ file, shownAs }) => {
      const found: ScanHit[] = scanner.scanName(`${file.run}/${file.relative}`).map((kind) => ({ shownAs, line: null, kind, variable: null, decoded: false }));
      const bytes = await readFile(file.source);
      for (const f of scanner.scan(asText(bytes, shownAs), formatOf(file.relative))) found.push({ shownAs, ...f });
      return { staged: { ...file, sha256: createHash('sha256').update(bytes).digest('hex') }, found };
    });
    files = scanned.map((s) => s.staged);
    hits.push(...scanned.flatMap((s) => s.found));
  } catch (error) {
    if (error instanceof MakeSiteError) throw new MakeSiteError(scanner.redactPaths(error.message), error.exitCode);
    throw error;
  }
  if (hits.length > 0) {
    printHits(hits, (l) => io.err(l), scanner);
    throw new MakeSiteError(
      refusalMessage(hits, '', 'nothing was staged or published. Remove the secret from the run folder (or delete the file), revoke the key if it was real, and run make_site.sh again.'),
      EXIT.secret,
    );
  }
  // Only now is anything copied: each file read again and checked to be the bytes scanned.
  const staging = `${options.data}.staging-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  try {
    await inOrder(files, async (file) => {
      const bytes = await readFile(file.source);
      if (createHash('sha256').update(bytes).digest('hex') !== file.sha256) {
        throw new MakeSiteError(`${scanner.redactPaths(`${file.run}/${file.relative}`)} changed while the site was being staged; nothing was published. Run make_site.sh again once the run is not being written.`, EXIT.usage);
      }
      const target = path.join(staging, 'runs', file.run, ...file.relative.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, bytes);
    });
    await mkdir(path.join(staging, 'runs'), { recursive: true });
    await swapIn(staging, options.data);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  io.out(`make_site: staged ${files.length} files of ${runs.length} ${runs.length === 1 ? 'run' : 'runs'} into ${path.relative(REPO, options.data) || options.data}`);
  return { runs, files: files.length };
}

/** Files staged at once: their reads overlap the scan of the others, and a sweep's transcripts are never held whole. */
const STAGE_AT_ONCE = 8;

/**
 * `work` on each item, at most STAGE_AT_ONCE at a time, with the results in the items' order.
 * Every started item is let finish before a failure is thrown (the first in the items' order),
 * so nothing still writes into a folder the caller is about to remove.
 */
async function inOrder<T, R>(items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> {
  const queue = new PQueue({ concurrency: STAGE_AT_ONCE });
  const settled = await Promise.allSettled(items.map((item) => queue.add(() => work(item)) as Promise<R>));
  const failed = settled.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((r) => (r as PromiseFulfilledResult<R>).value);
}

/**
 * Replaces `target` with `fresh`: the old one is moved aside first and removed after. Across
 * file systems (a rename cannot), `fresh` is first copied beside `target`, then renamed.
 */
async function swapIn(fresh: string, target: string): Promise<void> {
  const old = `${target}.old-${process.pid}`;
  const near = `${target}.new-${process.pid}`;
  await rm(old, { recursive: true, force: true });
  await mkdir(path.dirname(target), { recursive: true });
  try {
    await rename(fresh, near);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await cp(fresh, near, { recursive: true });
  }
  await rename(target, old).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(near, target);
  await rm(old, { recursive: true, force: true });
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

/**
 * The post-build scan: every file `astro build` wrote, read as served, before it is swapped in.
 * The staged files were scanned already; this catches what a page composes from them.
 */
export async function refuseBuiltSecrets(built: string, options: Pick<MakeSiteOptions, 'providers' | 'out'>, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { scanner } = await secretScanner(options.providers, env);
  const { files, findings } = await scanOutput(built, scanner);
  if (findings.length > 0) {
    const hits: ScanHit[] = findings.map((f) => ({ ...f, shownAs: `the built page ${f.file}` }));
    printHits(hits, (l) => io.err(l), scanner);
    const out = path.relative(REPO, options.out) || options.out;
    throw new MakeSiteError(refusalMessage(hits, ' of the built site', `nothing was published; ${out} is unchanged. A page shows a secret the run files hold in a form the staging scan did not read: remove it from the run folder, revoke the key if it was real, and report the page.`), EXIT.secret);
  }
  io.out(`make_site: scanned the ${files} built files for secrets: none`);
}

/** `astro build` of site/ from the staged data, into a fresh folder, scanned, and swapped in when clean. */
export async function buildSite(options: MakeSiteOptions, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  // Inside the working folder: astro build mishandles an output folder outside it.
  const building = path.join(SITE, `.build-${process.pid}`);
  const cache = await mkdtemp(path.join(tmpdir(), 'rdh-site-cache-'));
  await rm(building, { recursive: true, force: true });
  try {
    const astro = path.join(REPO, 'node_modules', 'astro', 'astro.js');
    const code = await run(process.execPath, [astro, 'build', '--root', SITE, '--outDir', building, '--silent'], {
      ...env,
      ASTRO_TELEMETRY_DISABLED: '1',
      RDH_SITE_DATA: options.data,
      RDH_SITE_BASE: options.base,
      RDH_SITE_CACHE: cache,
      // The reproduce steps clone the harness from the address its package.json declares (none: they say where to declare it).
      RDH_SITE_REPOSITORY: repositoryOf(JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8'))) ?? '',
    });
    if (code !== 0) throw new MakeSiteError(`make_site: the site build failed (astro build exited ${code}); the message above names the file. Nothing was published${options.out ? `; ${path.relative(REPO, options.out) || options.out} is unchanged` : ''}.`, EXIT.build);
    // The transcripts' long texts are copied in, not rendered, and scanned with every other built file.
    await publishTexts(options.data, building);
    await refuseBuiltSecrets(building, options, io, env);
    await swapIn(building, options.out);
  } finally {
    await rm(building, { recursive: true, force: true });
    await rm(cache, { recursive: true, force: true });
  }
  io.out(`make_site: built ${path.relative(REPO, options.out) || options.out}${options.base !== '/' ? ` for ${options.base}` : ''}`);
}

export async function makeSite(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  try {
    const options = parseArgs(argv);
    if (options === 'help') {
      io.out(USAGE);
      return EXIT.ok;
    }
    if (options.watch) return await watchSite(options, options.watch, { stageRuns, buildSite }, io, env);
    await stageRuns(options, io, env);
    if (!options.stageOnly) await buildSite(options, io, env);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof MakeSiteError) {
      io.err(error.message.startsWith('make_site:') ? error.message : `make_site: ${error.message}`);
      return error.exitCode;
    }
    // Redacted on the way out: an unexpected error must not carry a secret it read into the terminal.
    io.err(SECRET_SHAPES.redact(`make_site: a bug (please report it with the command and this output): ${(error as Error).stack ?? String(error)}`));
    return EXIT.bug;
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const io: Io = { out: (l) => process.stdout.write(`${l}\n`), err: (l) => process.stderr.write(`${l}\n`) };
  process.exitCode = await makeSite(process.argv.slice(2), io);
}
