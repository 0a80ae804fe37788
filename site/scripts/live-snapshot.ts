import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runPaths } from '../../harness/run-files.js';
import { admitted, skippedWhole } from './allowlist.js';

/**
 * The watch's private copy of a run that `harness record` is still writing. The recording is
 * never disturbed: its folder is only read (no lock, no file written, not even a report), and
 * everything the watch builds from lives in this copy:
 *
 * - the inputs of `harness report`: the journal up to its last complete line, and the manifest;
 * - the published files, each copied only when its size or mtime moved: those outside cells/
 *   (the source's own report/ excepted, since the copy gets one built from the journal as it
 *   stands), and a cell's files only once the report calls the cell settled (measured,
 *   unavailable or unmeasured). A cell still running has transcripts half written and no result,
 *   so its page appears when it is measured, not as a torn half before.
 *
 * A copy rather than reading the live files in place also gives the secret scan and the build
 * the same bytes: make_site refuses a file that changed between its scan and its copy, which a
 * live transcript always would.
 */

/** Report rows whose cell will not be written again by this invocation of record. */
export const SETTLED = new Set(['measured', 'unavailable', 'unmeasured']);

export class RunSnapshot {
  /** Source files copied so far: relative path to their `size:mtime` when copied. */
  private readonly copied = new Map<string, string>();
  private reportDigest = '';

  constructor(
    /** The run folder being recorded (read only). */
    readonly source: string,
    /** The copy, named as the run (the site names pages after the folder). */
    readonly target: string,
  ) {}

  /** Copies the journal (its complete lines) and the manifest; true when either changed. */
  async syncInputs(): Promise<boolean> {
    const from = runPaths(this.source);
    const to = runPaths(this.target);
    await mkdir(this.target, { recursive: true });
    let changed = false;
    for (const [file, copy, whole] of [
      [from.journal, to.journal, false],
      [from.manifest, to.manifest, true],
    ] as const) {
      const bytes = await readFile(file);
      // A line being appended is not an event yet: the reader ignores it too, but a stable copy needs no guessing.
      const kept = whole ? bytes : bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1);
      const before = await readFile(copy).catch(() => undefined);
      if (before?.equals(kept)) continue;
      await writeFile(copy, kept);
      changed = true;
    }
    return changed;
  }

  /** Whether the copy's report/ differs from what it held at the last call. */
  async reportChanged(): Promise<boolean> {
    const dir = runPaths(this.target).report;
    const hash = createHash('sha256');
    for (const rel of (await filesBelow(dir)).sort()) hash.update(rel).update('\0').update(await readFile(path.join(dir, rel))).update('\0');
    const digest = hash.digest('hex');
    if (digest === this.reportDigest) return false;
    this.reportDigest = digest;
    return true;
  }

  /**
   * Brings the copy's published files up to the source: copies what is new or moved, removes
   * what the source no longer has (a file deleted, a cell no longer settled). True on any change.
   */
  async syncPublished(settled: ReadonlySet<string>): Promise<boolean> {
    const seen = new Set<string>();
    let changed = false;
    const cells = path.basename(runPaths('').cells);
    const report = path.basename(runPaths('').report);
    const visit = async (relative: string): Promise<void> => {
      const entries = await readdir(path.join(this.source, relative), { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
        // A folder removed between listing and reading (a workspace cleaned up) has nothing to copy.
        if (error.code === 'ENOENT') return [];
        throw error;
      });
      for (const e of entries) {
        const rel = relative ? `${relative}/${e.name}` : e.name;
        const parts = rel.split('/');
        if (e.isDirectory()) {
          if (skippedWhole(rel) || (parts.length === 1 && parts[0] === report)) continue;
          if (parts.length === 2 && parts[0] === cells && !settled.has(parts[1]!)) continue;
          await visit(rel);
        } else if (e.isFile() && admitted(rel)) {
          seen.add(rel);
          if (await this.copy(rel)) changed = true;
        }
      }
    };
    await visit('');
    for (const rel of [...this.copied.keys()].filter((r) => !seen.has(r))) {
      await rm(path.join(this.target, rel), { force: true });
      this.copied.delete(rel);
      changed = true;
    }
    return changed;
  }

  private async copy(rel: string): Promise<boolean> {
    const from = path.join(this.source, rel);
    const info = await stat(from).catch(() => undefined);
    if (!info) return false;
    const mark = `${info.size}:${info.mtimeMs}`;
    if (this.copied.get(rel) === mark) return false;
    const to = path.join(this.target, rel);
    const bytes = await readFile(from).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (!bytes) return false;
    await mkdir(path.dirname(to), { recursive: true });
    await writeFile(to, bytes);
    this.copied.set(rel, mark);
    return true;
  }
}

async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}
