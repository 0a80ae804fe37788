import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root folder (the one holding package.json), found from a module's own URL by
 * walking up. The sources run from `engine/` and `harness/` under tsx, and compiled from
 * `dist/engine/` and `dist/harness/`; the non-TypeScript assets (prompts, schemas, the task folders,
 * the sim corpus, Python files) stay where they are in the package, so every module that
 * reads one resolves it against this root, never against its own folder.
 */
export function packageRoot(moduleUrl: string): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${fileURLToPath(moduleUrl)}`);
    dir = parent;
  }
}
