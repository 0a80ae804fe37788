import path from 'node:path';
import { z } from 'zod';
import { readDataFile } from '../internal/data-file.js';
import { gradeMergesOf, type Manifest } from '../manifest/manifest.js';
import { oracleDir } from '../paths.js';
import { SpecInvalidError } from './spec-requirements.js';

/** `oracle/<spec>/deliverable.yaml`: the files a tree must hold at its root to be the spec's runnable deliverable. */
export const Deliverable = z.strictObject({
  entry_points: z
    .array(z.string().min(1).refine((p) => !path.isAbsolute(p) && !p.split(/[\\/]/).includes('..'), 'must be a path inside the tree'))
    .min(1)
    .describe('Paths relative to the tree root, e.g. sqlcsv/__main__.py.'),
});
export type Deliverable = z.infer<typeof Deliverable>;

/** The entry points of the deliverable an oracle folder grades (its deliverable.yaml). */
export async function deliverableOf(oracleDir: string): Promise<Deliverable> {
  const file = path.join(oracleDir, 'deliverable.yaml');
  const read = await readDataFile(file, { shownAs: file, schema: Deliverable, what: 'deliverable', starter: 'list entry_points: the files at the root of a runnable tree' });
  if (!read.ok) throw new SpecInvalidError(read.lines.join('\n'));
  return read.value;
}

/** The merge-by-merge grading a sweep asks for (`grade_merges`), with the entry points its spec's oracle names; undefined when off. */
export async function mergeGradingOf(manifest: Pick<Manifest, 'grade_merges'>, specDir: string, simulated: boolean): Promise<{ entryPoints: readonly string[] } | undefined> {
  if (!gradeMergesOf(manifest, simulated)) return undefined;
  return { entryPoints: (await deliverableOf(oracleDir(path.basename(specDir)))).entry_points };
}
