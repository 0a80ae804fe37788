import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, readlink, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a host-sandbox command answered, once per workspace content. The SIMULATED population's
 * checks (python, pytest) are functions of the files they read, and the logic tests record the
 * same population again and again (each resume, ceiling, layout and pairing test draws the same
 * trees, and a sweep's two arms share their leaves), so one command meets the same bytes dozens
 * of times in one `npm test`. It runs for real the first time its workspace holds exactly these
 * bytes; after that the first answer is handed back. Only a command that left its workspace as it
 * found it is kept (one that writes, py_compile say, runs every time, so its writes still
 * happen), and the workspace's own folder is kept as a placeholder, so a reused answer names the
 * folder it is handed to. A command that hit its time limit is not kept: that is the machine's
 * load speaking, not the files.
 *
 * Within a process the answers are shared by every file of its vitest worker (the module
 * registry is shared, vitest.config.ts). Across processes (the other worker, the drivers a kill
 * test starts) they are shared through the folder RDH_COMMAND_MEMO names, which `npm test`'s
 * global setup makes for its run and removes after it. A test that needs every command executed
 * passes `memo: false` to hostSandboxes.
 */
export interface CommandAnswer {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
}

const PLACEHOLDER = '\u0000workspace\u0000';
/** By workspace digest and command: the answer, or null once the command proved to write (then each caller runs it). */
const answers = new Map<string, Promise<CommandAnswer | null>>();

/**
 * Every path under `root` with its type, mode and bytes (a link by its target), in a fixed order.
 * Nothing is left out, caches included: a command that writes `__pycache__` (py_compile does,
 * whatever PYTHONDONTWRITEBYTECODE says) changed what a later listing of the workspace shows.
 * A compiled file counts by its name only: its bytes hold its source's modification time, and
 * python checks them against the source and recompiles a stale one, so they cannot change what
 * a command does, while two runs that write the same source at different times would differ.
 */
export async function workspaceDigest(root: string): Promise<string> {
  const hash = createHash('sha256');
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const rels = entries.map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/')).sort();
  for (const rel of rels) {
    const full = path.join(root, rel);
    const st = await lstat(full);
    hash.update(`${rel}\0${st.mode}\0`);
    if (st.isFile() && !rel.endsWith('.pyc')) hash.update(await readFile(full));
    else if (st.isSymbolicLink()) hash.update(await readlink(full));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const swap = (text: string, from: string, to: string) => text.split(from).join(to);
const kept = (answer: CommandAnswer, dir: string): CommandAnswer => ({ ...answer, stdout: swap(answer.stdout, dir, PLACEHOLDER), stderr: swap(answer.stderr, dir, PLACEHOLDER) });
const handed = (answer: CommandAnswer, dir: string): CommandAnswer => ({ ...answer, stdout: swap(answer.stdout, PLACEHOLDER, dir), stderr: swap(answer.stderr, PLACEHOLDER, dir) });

/**
 * `run(command)` in `dir`, or the answer it gave before in a workspace with exactly these bytes.
 * A command already running in such a workspace is waited for rather than started again (a
 * sweep runs both arms, and a test its variants, at once), unless it turns out to have written.
 */
export async function memoisedCommand(dir: string, command: string, run: () => Promise<CommandAnswer>): Promise<CommandAnswer> {
  const before = await workspaceDigest(dir);
  const key = `${before} ${command}`;
  const pending = answers.get(key);
  const earlier = pending ? await pending : await fromDisk(key);
  if (earlier) return handed(earlier, dir);
  let settle: ((answer: CommandAnswer | null) => void) | undefined;
  if (!pending) answers.set(key, new Promise((resolve) => (settle = resolve)));
  let answer: CommandAnswer;
  try {
    answer = await run();
  } catch (error) {
    if (settle) {
      settle(null);
      answers.delete(key);
    }
    throw error;
  }
  if (settle) {
    const keep = !answer.timedOut && (await workspaceDigest(dir)) === before ? kept(answer, dir) : null;
    settle(keep);
    if (keep) await toDisk(key, keep);
    else answers.delete(key);
  }
  return answer;
}

const diskFile = (key: string): string | undefined => {
  const dir = process.env.RDH_COMMAND_MEMO;
  return dir ? path.join(dir, `${createHash('sha256').update(key).digest('hex')}.json`) : undefined;
};

async function fromDisk(key: string): Promise<CommandAnswer | null> {
  const file = diskFile(key);
  const text = file ? await readFile(file, 'utf8').catch(() => null) : null;
  if (text === null) return null;
  const { key: stored, ...answer } = JSON.parse(text) as CommandAnswer & { key: string };
  // The file is named by a digest of the key; the key inside rules a collision out.
  return stored === key ? answer : null;
}

async function toDisk(key: string, answer: CommandAnswer): Promise<void> {
  const file = diskFile(key);
  if (!file) return;
  await mkdir(path.dirname(file), { recursive: true });
  // Written aside and renamed: a reader in another process sees the whole answer or none.
  const aside = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(aside, JSON.stringify({ key, ...answer }));
  await rename(aside, file);
}

/** Forgets this process's answers (the folder's stay): as a fresh process would start. For the memo's own tests. */
export function forgetAnswersInProcess(): void {
  answers.clear();
}
