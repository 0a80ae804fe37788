/**
 * Whether a process of this host still runs: what tells a leftover of a killed run (its
 * containers, its grading folders, its journal lock) from something a live process is using.
 * EPERM means it exists but belongs to another user, which is alive all the same.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
