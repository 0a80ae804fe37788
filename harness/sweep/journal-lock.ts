import { open, readFile, unlink } from 'node:fs/promises';
import { JournalBusyError } from './journal-error.js';

/** A held lock; `release` removes it (idempotent). */
export interface JournalLock {
  readonly file: string;
  release(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Takes `<journal>.lock`, holding this process's pid: one writer per journal, across
 * processes as well as within one (two `harness record` runs into the same --out would
 * interleave two histories). A lock left by a process that is gone (SIGKILL, power loss) is
 * taken over; a live holder is refused.
 */
export async function lockJournal(journalFile: string, shownAs: string): Promise<JournalLock> {
  const file = `${journalFile}.lock`;
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fh = await open(file, 'wx');
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      let released = false;
      return {
        file,
        release: async () => {
          if (released) return;
          released = true;
          await unlink(file).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const pid = Number.parseInt(await readFile(file, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
      const who = pid === process.pid ? 'this process already has it open' : `process ${pid} is writing it`;
      throw new JournalBusyError(`${shownAs}: ${who}; wait for that run to finish, or if no harness is running, delete ${file}`);
    }
    // The holder is gone; its lock is stale.
    await unlink(file).catch(() => undefined);
  }
  throw new JournalBusyError(`${shownAs}: another process keeps taking the lock ${file}; make sure only one harness records into this folder`);
}
