import { chmod, mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetAnswersInProcess, memoisedCommand, type CommandAnswer } from './command-memo.js';

/**
 * The host sandbox's memo (command-memo.ts) may hand back an answer only where running the
 * command again would have given it: the same command, the same bytes. Each case here fails
 * when the rule it names is dropped from the memo.
 */
let tmp: string;
let n = 0;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-command-memo-test-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));
beforeEach(() => {
  forgetAnswersInProcess();
  // Every case starts with no folder of answers: the run's own must not answer for it.
  vi.stubEnv('RDH_COMMAND_MEMO', '');
});

/** A fresh workspace holding `files`. */
async function workspace(files: Record<string, string>): Promise<string> {
  const dir = path.join(tmp, `ws-${++n}`);
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A command that reports the folder it ran in, counting its real runs. */
function counted(effect?: (dir: string) => Promise<void>): { runs: () => number; in: (dir: string) => Promise<CommandAnswer> } {
  let runs = 0;
  return {
    runs: () => runs,
    in: (dir) =>
      memoisedCommand(dir, 'python3 -m pytest -q tests', async () => {
        runs++;
        await effect?.(dir);
        return { exitCode: 1, stdout: `FAILED ${dir}/tests/test_a.py`, stderr: '' };
      }),
  };
}

describe('the host sandbox runs a command once per workspace content', () => {
  it('hands the first answer to a second folder with the same bytes, naming that folder', async () => {
    const c = counted();
    const a = await workspace({ 'tests/test_a.py': 'x', 'app.py': 'y' });
    const b = await workspace({ 'tests/test_a.py': 'x', 'app.py': 'y' });
    await c.in(a);
    expect(await c.in(b)).toEqual({ exitCode: 1, stdout: `FAILED ${b}/tests/test_a.py`, stderr: '' });
    expect(c.runs()).toBe(1);
  });

  it('runs again for other bytes, another name or another mode', async () => {
    const c = counted();
    await c.in(await workspace({ 'app.py': 'y' }));
    await c.in(await workspace({ 'app.py': 'z' }));
    await c.in(await workspace({ 'main.py': 'y' }));
    const executable = await workspace({ 'app.py': 'y' });
    await chmod(path.join(executable, 'app.py'), 0o755);
    await c.in(executable);
    expect(c.runs()).toBe(4);
  });

  it('counts a compiled file by its name, not its bytes (they hold a modification time)', async () => {
    const c = counted();
    await c.in(await workspace({ 'app.py': 'y', '__pycache__/app.cpython-311.pyc': 'stamp 1' }));
    await c.in(await workspace({ 'app.py': 'y', '__pycache__/app.cpython-311.pyc': 'stamp 2' }));
    expect(c.runs()).toBe(1);
    await c.in(await workspace({ 'app.py': 'y' }));
    expect(c.runs()).toBe(2);
  });

  it('runs a command that writes every time, so its writes happen in each workspace', async () => {
    const c = counted((dir) => writeFile(path.join(dir, `out-${Math.random()}`), ''));
    await c.in(await workspace({ 'app.py': 'y' }));
    await c.in(await workspace({ 'app.py': 'y' }));
    expect(c.runs()).toBe(2);
  });

  it('waits for the same command already running on the same bytes instead of starting it again', async () => {
    const c = counted();
    const dirs = await Promise.all([1, 2, 3].map(() => workspace({ 'app.py': 'y' })));
    const answers = await Promise.all(dirs.map((d) => c.in(d)));
    expect(c.runs()).toBe(1);
    expect(answers.map((a) => a.stdout)).toEqual(dirs.map((d) => `FAILED ${d}/tests/test_a.py`));
  });

  it('keeps no answer that hit its time limit', async () => {
    let runs = 0;
    const slow = (dir: string) => memoisedCommand(dir, 'sleep 999', async () => (runs++, { exitCode: 124, timedOut: true, stdout: '', stderr: 'killed' }));
    await slow(await workspace({ 'app.py': 'y' }));
    await slow(await workspace({ 'app.py': 'y' }));
    expect(runs).toBe(2);
  });

  it('shares answers with other processes through the run\'s folder, and only through it', async () => {
    vi.stubEnv('RDH_COMMAND_MEMO', path.join(tmp, 'answers'));
    const c = counted();
    await c.in(await workspace({ 'app.py': 'shared' }));
    forgetAnswersInProcess(); // as another process starts
    await c.in(await workspace({ 'app.py': 'shared' }));
    expect(c.runs()).toBe(1);
    vi.stubEnv('RDH_COMMAND_MEMO', '');
    forgetAnswersInProcess();
    await c.in(await workspace({ 'app.py': 'shared' }));
    expect(c.runs()).toBe(2);
  });
});
