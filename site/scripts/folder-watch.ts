import { watch as fsWatch, type FSWatcher } from 'node:fs';

/**
 * Change notices for a run folder and everything below it. A recursive fs.watch first (prompt,
 * and idle while nothing is written); if the platform refuses it or it fails later (a watch
 * limit reached, the folder replaced), the folder is polled instead: `onChange` every `pollMs`,
 * which the rebuild turns into nothing when nothing changed. Either way the watch goes on.
 */

export interface FolderWatchOptions {
  /** Paths (relative, `/`-separated) whose changes are not worth a rebuild. Default: none. */
  ignore?: (relative: string) => boolean;
  /** The poll's period once fs.watch has failed. Default 2000 ms. */
  pollMs?: number;
  /** Replaces fs.watch (tests). */
  watchImpl?: typeof fsWatch;
}

export interface FolderWatch {
  /** True once it fell back to polling. */
  readonly polling: boolean;
  close(): void;
}

export function watchFolder(dir: string, onChange: () => void, tell: (line: string) => void, options: FolderWatchOptions = {}): FolderWatch {
  let watcher: FSWatcher | undefined;
  let poll: NodeJS.Timeout | undefined;
  let closed = false;
  const fallBack = (why: string) => {
    watcher?.close();
    watcher = undefined;
    if (closed || poll) return;
    tell(`cannot watch ${dir} for changes (${why}); looking every ${(options.pollMs ?? 2000) / 1000} s instead`);
    poll = setInterval(onChange, options.pollMs ?? 2000);
  };
  try {
    watcher = (options.watchImpl ?? fsWatch)(dir, { recursive: true }, (_event, file) => {
      if (typeof file === 'string' && options.ignore?.(file.split('\\').join('/'))) return;
      onChange();
    });
    watcher.on('error', (error) => fallBack(error.message));
  } catch (error) {
    fallBack((error as Error).message);
  }
  return {
    get polling() {
      return poll !== undefined;
    },
    close() {
      closed = true;
      watcher?.close();
      clearInterval(poll);
    },
  };
}
