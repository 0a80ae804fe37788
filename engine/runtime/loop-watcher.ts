/**
 * The tool loop's watcher port: after every tool call the loop reports what the call did,
 * and the watcher answers whether the loop must end or the drift judge be asked. The court's
 * monitor implements it; the loop does not know which heuristics run.
 */

/** What one tool call did, as the work loop reports it after the call. */
export interface MonitorStep {
  tool: string;
  args: unknown;
  /** The call changed a file's content. */
  wroteFile: boolean;
  /** Paths the call wrote, for the "write nobody checks" drift trigger. */
  writtenPaths?: string[];
  /** Checks passing after the call, when the call ran them. */
  checkPassCount?: number | null;
  /**
   * Digest of the whole workspace after the call, when the loop took one. A write is progress
   * only when it reaches a state never seen before; without a digest the call's own arguments
   * stand in for it.
   */
  state?: string;
}

export type MonitorFlagKind = 'repeat' | 'oscillation' | 'no_progress';

export interface MonitorVerdict {
  flags: Array<{ kind: MonitorFlagKind; detail: string }>;
  /** Why the drift judge should be asked now, or null. The judge is never asked without a trigger. */
  consultDrift: string | null;
}

export interface LoopWatcher {
  /** Told the workspace state before the first call. */
  begin?(state: string): void;
  observe(step: MonitorStep): MonitorVerdict;
}
