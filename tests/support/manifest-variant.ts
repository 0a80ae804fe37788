import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';

/**
 * A copy of a manifest with some top-level fields changed (a field set to undefined is dropped),
 * written into `dir` as `name` (default the original's file name): its `spec` made absolute (it
 * is relative to the manifest's own folder), so the copy reads the same spec from anywhere. For
 * tests that record a shipped manifest with one choice turned, such as `grade_leaves: false`
 * where leaf gradings would repeat what another test shows.
 */
export async function manifestVariant(file: string, dir: string, fields: Record<string, unknown>, name = path.basename(file)): Promise<string> {
  const manifest = parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  if (typeof manifest.spec !== 'string') throw new Error(`manifestVariant: ${file} has no spec`);
  const out = path.join(dir, name);
  await writeFile(out, stringify({ ...manifest, spec: path.resolve(path.dirname(file), manifest.spec), ...fields }));
  return out;
}
