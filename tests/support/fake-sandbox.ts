import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  SNAPSHOT_IGNORES,
  type ExecResult,
  type Sandbox,
  type SandboxCreateOptions,
  type SandboxProvider,
  type WorkspaceSnapshot,
} from '../../engine/index.js';

/** What a fake command sees: the workspace's files, on the host. */
export interface FakeWorkspace {
  readonly dir: string;
  has(file: string): Promise<boolean>;
  read(file: string): Promise<string | null>;
  write(file: string, content: string): Promise<void>;
}

export type FakeCommand = (ws: FakeWorkspace) => Promise<Partial<ExecResult> & { exitCode: number }> | (Partial<ExecResult> & { exitCode: number });

/**
 * FAKE sandbox, for tests of the court's logic only: files live in a real host directory
 * (so copies, listings and snapshots behave as they do in Docker), but NO command is ever
 * executed. Each command is answered by a function the test gives, keyed by its exact text;
 * an unknown command answers like a shell that lacks it (exit 127). Nothing agent-written
 * runs here: the only "agents" are the test's scripts.
 */
export class FakeSandboxProvider implements SandboxProvider {
  readonly created: Array<{ workspaceDir: string; purpose: string; copyFrom: string | null }> = [];
  /** Every command run, with the purpose of the sandbox it ran in. */
  readonly commands: Array<{ purpose: string; command: string }> = [];

  constructor(private readonly table: Record<string, FakeCommand>) {}

  async create(options: SandboxCreateOptions): Promise<Sandbox> {
    const dir = path.resolve(options.workspaceDir);
    if (options.copyFrom) await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    if (options.copyFrom) await cp(options.copyFrom, dir, { recursive: true, verbatimSymlinks: true });
    const purpose = options.purpose ?? '';
    this.created.push({ workspaceDir: dir, purpose, copyFrom: options.copyFrom ?? null });
    return new FakeSandbox(dir, (command, ws) => {
      this.commands.push({ purpose, command });
      const run = this.table[command];
      return run ? run(ws) : { exitCode: 127, stderr: `sh: 1: ${command.split(' ')[0]}: not found` };
    });
  }
}

class FakeSandbox implements Sandbox, FakeWorkspace {
  readonly id: string;
  constructor(
    readonly dir: string,
    private readonly answer: (command: string, ws: FakeWorkspace) => ReturnType<FakeCommand>,
  ) {
    this.id = `fake-${path.basename(dir)}`;
  }

  get workspaceDir(): string {
    return this.dir;
  }

  private at(file: string): string {
    const full = path.resolve(this.dir, file);
    if (!full.startsWith(this.dir)) throw new Error(`fake sandbox: ${file} leaves the workspace`);
    return full;
  }

  async has(file: string): Promise<boolean> {
    return (await this.read(file)) !== null;
  }

  async read(file: string): Promise<string | null> {
    return readFile(this.at(file), 'utf8').catch(() => null);
  }

  async write(file: string, content: string): Promise<void> {
    await mkdir(path.dirname(this.at(file)), { recursive: true });
    await writeFile(this.at(file), content);
  }

  async exec(command: string): Promise<ExecResult> {
    const r = await this.answer(command, this);
    return { stdout: '', stderr: '', timedOut: false, truncated: false, durationMs: 1, ...r };
  }

  async readFile(file: string): Promise<string> {
    return readFile(this.at(file), 'utf8');
  }

  async writeFile(file: string, content: string): Promise<void> {
    await this.write(file, content);
  }

  async listFiles(dir = '.'): Promise<string[]> {
    const root = this.at(dir);
    const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    return entries.filter((e) => !e.isDirectory()).map((e) => path.relative(this.dir, path.join(e.parentPath, e.name)).split(path.sep).join('/')).sort();
  }

  async snapshot(): Promise<WorkspaceSnapshot> {
    const out: WorkspaceSnapshot = {};
    for (const rel of await this.listFiles()) {
      if (!SNAPSHOT_IGNORES.test(rel)) out[rel] = createHash('sha1').update(await readFile(this.at(rel))).digest('hex');
    }
    return out;
  }

  async dispose(): Promise<void> {}
}

/** Answers for the hello-world checks of `helloHandlers`, judged by reading the files (nothing runs). */
export const HELLO_COMMANDS: Record<string, FakeCommand> = {
  'test "$(python3 hello.py)" = hello': async (ws) => ({ exitCode: (await ws.read('hello.py')) === 'print("hello")\n' ? 0 : 1 }),
  'python3 hello.py >/dev/null': async (ws) => ((await ws.has('hello.py')) ? { exitCode: 0 } : { exitCode: 2, stderr: "python3: can't open file 'hello.py'" }),
  'python3 -m pytest -q test_hello.py': async (ws) =>
    (await ws.has('test_hello.py')) ? { exitCode: (await ws.read('hello.py')) === 'print("hello")\n' ? 0 : 1 } : { exitCode: 4, stdout: 'ERROR: file or directory not found: test_hello.py' },
};
