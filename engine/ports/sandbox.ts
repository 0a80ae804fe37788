/**
 * The Sandbox port: the only place agent-written code is allowed to run. The engine
 * depends on this interface; `docker-sandbox.ts` is the adapter that implements it on a
 * real Docker daemon, and tests may inject their own.
 *
 * One sandbox serves one unit of work: a container with the unit's host workspace
 * directory available read-write at {@link WORKSPACE_MOUNT}, and nothing else of the host.
 * How the directory gets there is the adapter's business (a bind mount, or a volume filled
 * and mirrored by tar streams for a daemon on another machine); either way the directory
 * shows what the sandbox made once a command or a write has returned.
 */

/** Where the workspace appears inside the sandbox. Fixed so checks and prompts can name it. */
export const WORKSPACE_MOUNT = '/workspace';

/** Appended to a stream that hit its cap, so a reader can never mistake a cut for the whole. */
export const TRUNCATION_MARKER = '\n[output truncated by the sandbox: ';

export interface ExecOptions {
  /** Wall-clock limit; the command (and, if it will not die, the container) is killed after it. Default 60 000 ms. */
  timeoutMs?: number;
  /** Working directory relative to the workspace root. Default `.` (the root). */
  cwd?: string;
  /** Extra environment variables for this command only. Default none. */
  env?: Record<string, string>;
}

/**
 * What a command did. A non-zero `exitCode` is a result, not an exception: a failing
 * check is information the engine acts on.
 */
export interface ExecResult {
  /** The command's exit status; `null` when it was killed for exceeding its timeout. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** True when either stream exceeded the cap and was cut (the cut is marked in the text). */
  truncated: boolean;
  durationMs: number;
}

export interface Sandbox {
  /** Stable id of this sandbox (also the container name). */
  readonly id: string;
  /** Host directory backing {@link WORKSPACE_MOUNT} (the mount itself, or a mirror kept in step after every command and write). */
  readonly workspaceDir: string;
  /**
   * Run `command` with `sh -c` inside the sandbox. When it returns, none of the command's
   * processes is left (background ones included), so the next command starts alone; when the
   * sandbox cannot make sure of that it fails with a coded error instead.
   */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** Read a UTF-8 file; `path` is relative to the workspace root. */
  readFile(path: string): Promise<string>;
  /** Write a UTF-8 file, creating parent directories. */
  writeFile(path: string, content: string): Promise<void>;
  /** Every file under `dir` (default the root), as sorted workspace-relative POSIX paths. */
  listFiles(dir?: string): Promise<string[]>;
  /**
   * A digest of every file's content by workspace-relative path, caches left out (see
   * {@link SNAPSHOT_IGNORES}): what a shell command changed is the difference of two snapshots.
   */
  snapshot(): Promise<WorkspaceSnapshot>;
  /** Remove the container. The workspace directory stays; it belongs to the caller. Idempotent. */
  dispose(): Promise<void>;
}

/** Content digest by workspace-relative POSIX path. */
export type WorkspaceSnapshot = Record<string, string>;

/** Interpreter caches: rewritten by running anything, so never counted as a change of the work. */
export const SNAPSHOT_IGNORES = /(?:^|\/)(?:__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache)(?:\/|$)|\.py[co]$/;

/** The paths whose content differs between two snapshots, sorted. */
export function changedPaths(before: WorkspaceSnapshot, after: WorkspaceSnapshot): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...paths].filter((p) => before[p] !== after[p]).sort();
}

export interface SandboxCreateOptions {
  /** Host directory to mount; created if missing. */
  workspaceDir: string;
  /**
   * Mount a fresh copy of this directory instead of whatever `workspaceDir` holds, owned so the
   * sandbox user can write it: the judged tree stays byte-identical while checks that write
   * files still work. Default: mount `workspaceDir` as it is.
   */
  copyFrom?: string;
  /** Run id written on the container's labels so orphans can be found and pruned. */
  runId: string;
  /** Human-readable purpose (e.g. the node id), recorded as a label. Default none. */
  purpose?: string;
}

/** Creates sandboxes. The engine receives one of these and never touches Docker itself. */
export interface SandboxProvider {
  create(options: SandboxCreateOptions): Promise<Sandbox>;
}
