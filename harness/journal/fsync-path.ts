import { open } from 'node:fs/promises';

/**
 * fsyncs a file or a folder by path. A new file is durable only once the folder entry that
 * names it is synced too, or a crash can lose the whole file with its content on disk.
 */
export async function fsyncPath(p: string): Promise<void> {
  const fh = await open(p, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
