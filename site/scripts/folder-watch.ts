import { watch as fsWatch, type FSWatcher } from 'node:fs';

/**
 * Change notices for a run folder and everything below it, by a recursive fs.watch (prompt, and
 * idle while nothing is written). Node's recursive watch on Linux fails when a folder vanishes
 * while it is being added (ENOENT on scandir), which a sweep does all the time: record's engine
 * works in `cells/<id>/work/` and removes each workspace when done. So a failure is not the end:
 * it counts as a change, and the watch is set up again `retryMs` later, with one more change
 * notice then for whatever happened in between. Where fs.watch never works, that is a poll.
 */

export interface FolderWatchOptions {
  /** Paths (relative, `/`-separated) whose changes are not worth a rebuild. Default: none. */
  ignore?: (relative: string) => boolean;
  /** How long after a failure the watch is set up again. Default 2000 ms. */
  retryMs?: number;
  /** Replaces fs.watch (tests). */
  watchImpl?: typeof fsWatch;
}

export interface FolderWatch {
  /** How many times fs.watch failed so far. */
  readonly failures: number;
  close(): void;
}

export function watchFolder(dir: string, onChange: () => void, tell: (line: string) => void, options: FolderWatchOptions = {}): FolderWatch {
  const retryMs = options.retryMs ?? 2000;
  let watcher: FSWatcher | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;
  let closed = false;
  const failed = (why: string) => {
    watcher?.close();
    watcher = undefined;
    if (closed) return;
    // Said once: on a busy sweep this can happen every few seconds, and each time is handled.
    if (failures++ === 0) tell(`watching ${dir} failed (${why}); set up again ${retryMs / 1000} s after each failure, meanwhile a failure counts as a change`);
    onChange();
    clearTimeout(retry);
    retry = setTimeout(() => {
      arm();
      // What changed while nothing was listening.
      onChange();
    }, retryMs);
  };
  const arm = () => {
    if (closed) return;
    try {
      const w = (options.watchImpl ?? fsWatch)(dir, { recursive: true }, (_event, file) => {
        if (typeof file === 'string' && options.ignore?.(file.split('\\').join('/'))) return;
        onChange();
      });
      watcher = w;
      w.on('error', (error) => {
        if (watcher === w) failed(error.message);
      });
    } catch (error) {
      failed((error as Error).message);
    }
  };
  arm();
  return {
    get failures() {
      return failures;
    },
    close() {
      closed = true;
      watcher?.close();
      clearTimeout(retry);
    },
  };
}
