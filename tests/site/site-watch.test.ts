import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { watch } from 'node:fs';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readSweepJournal } from '../../harness/index.js';
import { makeSite, type Io } from '../../site/scripts/make-site.js';
import { watchFolder } from '../../site/scripts/folder-watch.js';
import { RebuildQueue } from '../../site/scripts/rebuild-queue.js';
import { SAMPLES, pieces } from './secret-samples.js';

/**
 * `make_site.sh --watch` following a real `harness record` (the record tests' SIMULATED sweep at
 * cap 1 on the host sandbox, no Docker) whose grading of each cell waits for the test's go
 * (watch-record-driver.ts), so each step knows which cells are measured. The watch runs as a
 * user runs it, make_site.sh in its own process group, stopped by a Ctrl-C to that group.
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
const GATED = 'cap1-rep1-gated';
const UNGATED = 'cap1-rep1-ungated';
const SECRET = SAMPLES[0]!;
/**
 * How long one wait may take: a rebuild is `harness report` plus `astro build`, ~15 s on a quiet
 * machine and several times that on a loaded one. A test's own limit is above it, so a wait that
 * times out says what the watch printed.
 */
const WAIT = 150_000;
const STEP = WAIT + 30_000;
/** A test that waits twice (for the recorder, then for the watch). */
const TWO_STEPS = 2 * WAIT + 30_000;

interface Proc {
  child: ChildProcess;
  out(): string;
  err(): string;
  exit: Promise<number | null>;
}

function start(command: string, args: string[]): Proc {
  // Its own process group, as a terminal's foreground job: a Ctrl-C reaches every process of it.
  const child = spawn(command, args, { cwd: REPO, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => void (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => void (err += d.toString('utf8')));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

const alive = (p: Proc | undefined) => p !== undefined && p.child.exitCode === null && p.child.signalCode === null;

let tmp: string;
let runDir: string;
let gates: string;
let recorder: Proc | undefined;
let watcher: Proc | undefined;
let url: string;
let scratch: string;

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, timeout = WAIT): Promise<T> {
  const until = Date.now() + timeout;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    const said = () => `; the watch said:\n${watcher?.out()}\n${watcher?.err()}\nthe recorder said:\n${recorder?.err()}`;
    if (watcher && !alive(watcher)) throw new Error(`the watch exited (${watcher.child.exitCode ?? watcher.child.signalCode}) while waiting for ${what}${said()}`);
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${said()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function get(page: string): Promise<{ status: number; text: string }> {
  const response = await fetch(new URL(page, url));
  return { status: response.status, text: await response.text() };
}

/** The sweep page's "N of M cells measured", as the report's own words put it. */
async function measuredOnSweepPage(): Promise<number | undefined> {
  const page = await get('runs/live/');
  if (page.status !== 200) return undefined;
  const m = /(\d+) of \d+ cells? measured/.exec(page.text.replace(/<[^>]*>/g, ''));
  return m ? Number(m[1]) : undefined;
}

async function measuredInJournal(): Promise<string[]> {
  const events = (await readSweepJournal(path.join(runDir, 'journal.jsonl'))).events;
  return events.flatMap((e) => (e.type === 'cell_finished' && e.outcome.status === 'measured' ? [e.cellId] : []));
}

function capture(): Io & { lines: string[] } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), lines };
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-site-watch-test-'));
  runDir = path.join(tmp, 'runs', 'live');
  gates = path.join(tmp, 'gates');
  await mkdir(gates, { recursive: true });
  recorder = start(process.execPath, ['--import', 'tsx', path.join(REPO, 'tests/site/watch-record-driver.ts'), JSON.stringify({ out: runDir, gates })]);
  await waitFor('the journal header', async () => (await readSweepJournal(path.join(runDir, 'journal.jsonl'))).events.length > 0);
  watcher = start(path.join(REPO, 'make_site.sh'), ['--watch', runDir, '--port', '0']);
  const line = await waitFor('the URL', async () => /serving (http:\/\/127\.0\.0\.1:\d+\/) .*scratch (\S+), removed/.exec(watcher!.out()) ?? undefined);
  url = line[1]!;
  scratch = line[2]!;
}, STEP);

afterAll(async () => {
  // By process group, so the watch's astro build and the recorder's sandboxes go with them.
  for (const p of [watcher, recorder]) if (alive(p)) process.kill(-p!.child.pid!, 'SIGKILL');
  await Promise.all([watcher?.exit, recorder?.exit]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('make_site.sh --watch on a sweep being recorded', () => {
  it('before any cell is measured: a waiting page that reloads itself, and a cell page that is not there yet', async () => {
    await waitFor('the first attempt', async () => watcher!.err().includes('no report yet'));
    expect(watcher!.err()).toContain('no cell was measured');
    const home = await get('');
    expect(home.status).toBe(200);
    expect(home.text).toMatch(/<meta http-equiv="refresh" content="10">/);
    expect((await get(`runs/live/cells/${GATED}/`)).status).toBe(404);
  }, STEP);

  it("a cell's page appears once it is measured, the unmeasured one's does not, and the sweep page counts one", async () => {
    // Released once both arms' sessions are over (the gated grading has begun), so one rebuild, not a stream of them, follows.
    await waitFor('the gated grading', async () => stat(path.join(gates, `${GATED}.grading`)).then(() => true));
    await writeFile(path.join(gates, GATED), '');
    await waitFor('the gated cell page', async () => (await get(`runs/live/cells/${GATED}/`)).status === 200);
    expect(await measuredInJournal()).toEqual([GATED]);
    // The other arm's folder already holds its merge transcripts; it is not measured, so it has no page.
    expect((await readdir(path.join(runDir, 'cells', UNGATED))).length).toBeGreaterThan(0);
    expect((await get(`runs/live/cells/${UNGATED}/`)).status).toBe(404);
    expect(await measuredOnSweepPage()).toBe(1);
    expect((await get(`runs/live/cells/${GATED}/`)).text).toMatch(/<meta http-equiv="refresh" content="10"/);
    // The report was built from a copy: the run folder the recorder owns has none until the recorder writes it.
    await expect(stat(path.join(runDir, 'report'))).rejects.toThrow(/ENOENT/);
  }, TWO_STEPS);

  it('a planted secret refuses every rebuild (its class named, never its value), and the last good site stays served', async () => {
    const planted = path.join(runDir, 'cells', GATED, 'transcripts', 'planted.jsonl');
    await writeFile(planted, `${JSON.stringify({ note: SECRET.text })}\n`);
    await writeFile(path.join(gates, UNGATED), '');
    expect(await recorder!.exit).toBe(0);
    expect(await measuredInJournal()).toEqual([GATED, UNGATED]);
    // A change after the journal is final, so the refusal below is of a rebuild that had both cells to show.
    const mark = watcher!.err().length;
    await writeFile(planted, `${JSON.stringify({ note: SECRET.text, again: true })}\n`);
    const refusal = await waitFor('the refusal', async () => /refused: .*\n/.exec(watcher!.err().slice(mark))?.[0]);
    expect(refusal).toContain('still serving the build of');
    expect(watcher!.err().slice(mark)).toMatch(new RegExp(`runs/live/cells/${GATED}/transcripts/planted\\.jsonl line 1: ${SECRET.kind}`));
    expect((await get(`runs/live/cells/${UNGATED}/`)).status).toBe(404);
    expect(await measuredOnSweepPage()).toBe(1);
    for (const piece of pieces(SECRET.secret)) expect(watcher!.out() + watcher!.err()).not.toContain(piece);
  }, TWO_STEPS);

  it('once the secret is removed, the next rebuild shows the second cell and counts two', async () => {
    await rm(path.join(runDir, 'cells', GATED, 'transcripts', 'planted.jsonl'));
    await waitFor('the ungated cell page', async () => (await get(`runs/live/cells/${UNGATED}/`)).status === 200);
    expect(await measuredOnSweepPage()).toBe(2);
  }, STEP);

  it('Ctrl-C stops it: the server closed, the scratch folder removed, exit 0 (or 130 as tsx relays it)', async () => {
    expect(alive(watcher), `the watch is still running:\n${watcher!.err()}`).toBe(true);
    // One Ctrl-C, as a terminal sends it: SIGINT to the whole process group, so the watch hears it
    // twice (directly, and passed on by tsx's parent) and must take the two for one key press. A second
    // signal sent by hand 200 ms later also reached tsx's parent, which on a loaded machine sometimes
    // ended the child on its own (exit code not 0): that is tsx's behaviour, not the watch's.
    process.kill(-watcher!.child.pid!, 'SIGINT');
    // 0 from the watch itself; 130 when tsx's parent reports the Ctrl-C it relayed (seen on a loaded
    // machine). Either way the clean-up below must have run: a watch killed mid-way leaves its scratch.
    expect([0, 130]).toContain(await watcher!.exit);
    await expect(fetch(url)).rejects.toThrow();
    await expect(stat(scratch)).rejects.toThrow(/ENOENT/);
  }, 30_000);
});

describe('make_site.sh --watch refuses what it cannot follow, in one line with exit 2', () => {
  const refuse = async (args: string[]) => {
    const io = capture();
    expect(await makeSite(args, io, { PATH: process.env.PATH })).toBe(2);
    expect(io.lines).toHaveLength(1);
    return io.lines[0]!;
  };

  it('no run, a folder that does not exist, a folder that is not a run, two runs, --out, a bad port', async () => {
    expect(await refuse(['--watch'])).toMatch(/--watch follows one run: name it/);
    expect(await refuse(['--watch', path.join(tmp, 'runs', 'nope')])).toMatch(/runs\/nope: no such run folder/);
    expect(await refuse(['--watch', gates])).toMatch(/holds no journal\.jsonl/);
    expect(await refuse(['--watch', runDir, runDir])).toMatch(/\(2 were named\)/);
    expect(await refuse(['--watch', '--out', tmp, runDir])).toMatch(/--out does not apply/);
    expect(await refuse(['--watch', '--port', '70000', runDir])).toMatch(/give a port from 0 to 65535/);
    expect(await refuse(['--port', '4000', runDir])).toMatch(/--port is for --watch/);
    expect(await refuse(['--watch', '--providers', path.join(tmp, 'no-such.yaml'), runDir])).toMatch(/no-such\.yaml: not a readable file/);
    const unsafe = path.join(tmp, 'runs', 'bad name');
    await mkdir(unsafe, { recursive: true });
    expect(await refuse(['--watch', unsafe])).toMatch(/not safe in a URL/);
  });

  it('a port already taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      expect(await refuse(['--watch', '--port', String(port), runDir])).toMatch(/EADDRINUSE.*choose another with --port N/);
    } finally {
      taken.close();
    }
  });
});

describe('the rebuild queue', () => {
  const deferred = () => {
    let resolve!: () => void;
    return { promise: new Promise<void>((r) => (resolve = r)), resolve };
  };

  it('builds once, the quiet time after the last of a burst of changes', async () => {
    vi.useFakeTimers();
    try {
      let builds = 0;
      const queue = new RebuildQueue(async () => void builds++, { debounceMs: 2000 });
      queue.changed();
      await vi.advanceTimersByTimeAsync(1500);
      queue.changed();
      await vi.advanceTimersByTimeAsync(1500);
      expect(builds).toBe(0);
      await vi.advanceTimersByTimeAsync(600);
      expect(builds).toBe(1);
      await queue.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('changes that never pause still get a build, maxWaitMs after the first of them', async () => {
    vi.useFakeTimers();
    try {
      let builds = 0;
      const queue = new RebuildQueue(async () => void builds++, { debounceMs: 2000, maxWaitMs: 10_000 });
      for (let t = 0; t < 9500; t += 500) {
        queue.changed();
        await vi.advanceTimersByTimeAsync(500);
      }
      expect(builds).toBe(0);
      queue.changed();
      await vi.advanceTimersByTimeAsync(600);
      expect(builds).toBe(1);
      await queue.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('never two builds at once; changes during a build make exactly one more, after it', async () => {
    vi.useFakeTimers();
    try {
      const runs: Array<{ resolve(): void }> = [];
      let running = 0;
      let most = 0;
      const queue = new RebuildQueue(
        () => {
          const d = deferred();
          runs.push(d);
          most = Math.max(most, ++running);
          return d.promise.finally(() => running--);
        },
        { debounceMs: 100 },
      );
      queue.changed();
      await vi.advanceTimersByTimeAsync(150);
      expect(runs).toHaveLength(1);
      for (let i = 0; i < 5; i++) {
        queue.changed();
        await vi.advanceTimersByTimeAsync(150);
      }
      expect(runs).toHaveLength(1);
      runs[0]!.resolve();
      await vi.advanceTimersByTimeAsync(150);
      expect(runs).toHaveLength(2);
      runs[1]!.resolve();
      await vi.advanceTimersByTimeAsync(1000);
      expect(runs).toHaveLength(2);
      expect(most).toBe(1);
      await queue.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a build that throws does not stop the queue', async () => {
    vi.useFakeTimers();
    try {
      let builds = 0;
      const queue = new RebuildQueue(async () => {
        builds++;
        throw new Error('a failing build');
      }, { debounceMs: 10 });
      queue.changed();
      await vi.advanceTimersByTimeAsync(20);
      queue.changed();
      await vi.advanceTimersByTimeAsync(20);
      expect(builds).toBe(2);
      await queue.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('the run folder watch', () => {
  it('hears a file written in a folder made after it started, and not one under an ignored path', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-folder-watch-'));
    const heard: string[] = [];
    const w = watchFolder(dir, () => heard.push('change'), () => {}, { ignore: (f) => f.startsWith('cells/x/tree') });
    try {
      await mkdir(path.join(dir, 'cells', 'x', 'tree'), { recursive: true });
      await new Promise((r) => setTimeout(r, 300));
      heard.length = 0;
      await writeFile(path.join(dir, 'cells', 'x', 'tree', 'a.py'), 'x');
      await new Promise((r) => setTimeout(r, 300));
      expect(heard).toEqual([]);
      await mkdir(path.join(dir, 'cells', 'y', 'transcripts'), { recursive: true });
      await new Promise((r) => setTimeout(r, 300));
      heard.length = 0;
      await writeFile(path.join(dir, 'cells', 'y', 'transcripts', 's.jsonl'), '{}\n');
      await waitFor('the change notice', async () => heard.length > 0, 5000);
      // Workspaces made and removed as fast as an engine does: whatever fs.watch makes of it, changes are still heard after.
      for (let i = 0; i < 100; i++) {
        const ws = path.join(dir, 'cells', 'y', 'work', `n${i}`, 'tests');
        await mkdir(ws, { recursive: true });
        await writeFile(path.join(ws, 't.py'), 'x');
        await rm(path.join(dir, 'cells', 'y', 'work', `n${i}`), { recursive: true });
      }
      await new Promise((r) => setTimeout(r, 2500));
      heard.length = 0;
      await writeFile(path.join(dir, 'cells', 'y', 'transcripts', 's.jsonl'), '{}\n{}\n');
      await waitFor('a change notice after the churn', async () => heard.length > 0, 5000);
    } finally {
      w.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a failing fs.watch counts as a change and is set up again, said once', async () => {
    vi.useFakeTimers();
    try {
      const made: Array<EventEmitter & { close(): void }> = [];
      const impl = () => {
        const w = Object.assign(new EventEmitter(), { close: () => {} });
        made.push(w);
        return w;
      };
      const told: string[] = [];
      let changes = 0;
      const w = watchFolder('/run', () => changes++, (l) => told.push(l), { retryMs: 1000, watchImpl: impl as unknown as typeof watch });
      expect(made).toHaveLength(1);
      made[0]!.emit('error', new Error("ENOENT: no such file or directory, scandir '/run/cells/x/work/a'"));
      expect(changes).toBe(1);
      await vi.advanceTimersByTimeAsync(1000);
      // Set up again, with a notice for what it missed meanwhile.
      expect(made).toHaveLength(2);
      expect(changes).toBe(2);
      made[1]!.emit('error', new Error('again'));
      await vi.advanceTimersByTimeAsync(1000);
      expect(made).toHaveLength(3);
      expect(w.failures).toBe(2);
      expect(told).toEqual([`watching /run failed (ENOENT: no such file or directory, scandir '/run/cells/x/work/a'); set up again 1 s after each failure, meanwhile a failure counts as a change`]);
      w.close();
      await vi.advanceTimersByTimeAsync(3000);
      expect(made).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('where fs.watch always refuses, it looks every retryMs', async () => {
    vi.useFakeTimers();
    try {
      let changes = 0;
      const refuse = () => {
        throw new Error('ERR_FEATURE_UNAVAILABLE_ON_PLATFORM');
      };
      const w = watchFolder('/run', () => changes++, () => {}, { retryMs: 500, watchImpl: refuse as unknown as typeof watch });
      await vi.advanceTimersByTimeAsync(1100);
      expect(changes).toBeGreaterThanOrEqual(3);
      w.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
