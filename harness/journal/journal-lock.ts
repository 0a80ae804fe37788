import { open, readFile, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { processAlive } from '../../engine/index.js';
import { JournalBusyError } from './journal-error.js';

/** A held lock; `release` removes it (idempotent). */
export interface JournalLock {
  readonly file: string;
  release(): Promise<void>;
}

/** Lock files this process holds: a pid alone cannot tell "mine" from "a dead run's that had my pid" (pid 1 in a container). */
const held = new Set<string>();


/** Why the current holder is still live, or undefined when its lock is stale. */
function liveHolder(text: string, file: string): string | undefined {
  const [pidText, host] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  // On another machine (a shared folder) liveness cannot be checked: assume the holder is live.
  if (host !== undefined && host !== hostname()) return `process ${pid} on ${host} is writing it`;
  if (pid === process.pid) return held.has(file) ? 'this process already has it open' : undefined;
  return processAlive(pid) ? `process ${pid} is writing it` : undefined;
}

/**
 * Takes `<journal>.lock` (`<pid> <host>`): one writer per journal, across processes as well
 * as within one, since two `harness record` runs into the same --out would interleave two
 * histories. A lock left by a process that is gone (SIGKILL, power loss) is taken over; a
 * live holder is refused.
 */
export async function lockJournal(journalFile: string, shownAs: string): Promise<JournalLock> {
  const file = `${journalFile}.lock`;
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fh = await open(file, 'wx');
      held.add(file);
      await fh.writeFile(`${process.pid} ${hostname()}\n`);
      await fh.close();
      let released = false;
      return {
        file,
        release: async () => {
          if (released) return;
          released = true;
          held.delete(file);
          await unlink(file).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const who = liveHolder(await readFile(file, 'utf8').catch(() => ''), file);
    if (who) throw new JournalBusyError(`${shownAs}: ${who}; wait for that run to finish, or if no harness is running, delete ${file}`);
    await unlink(file).catch(() => undefined);
  }
  throw new JournalBusyError(`${shownAs}: another process keeps taking the lock ${file}; make sure only one harness records into this folder`);
}
