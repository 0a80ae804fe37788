#!/usr/bin/env node
// The `harness` binary. It runs the compiled CLI (dist/, built from engine/ and harness/ by
// `npm run build`, which `npm ci` runs through the `prepare` script), which starts at once. When
// dist/ is missing or older than any source file it runs the TypeScript sources through tsx
// instead (slower to start, never stale), and says so when a person is watching stderr.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const compiled = path.join(root, 'dist', 'harness', 'cli.js');

/** When dist/ was built (its CLI's mtime), or undefined when it was not. */
function builtAt() {
  try {
    return statSync(compiled).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether any TypeScript source of the CLI changed after `since`. */
function sourcesNewerThan(since) {
  for (const folder of ['engine', 'harness']) {
    for (const entry of readdirSync(path.join(root, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
      if (statSync(path.join(entry.parentPath ?? entry.path, entry.name)).mtimeMs > since) return true;
    }
  }
  return false;
}

const built = builtAt();
let cli;
if (built !== undefined && !sourcesNewerThan(built)) {
  cli = await import('../dist/harness/cli.js');
} else {
  if (process.stderr.isTTY) {
    process.stderr.write(`harness: ${built === undefined ? 'dist/ is not built' : 'a source changed since dist/ was built'}; running the sources through tsx (slower to start). npm run build compiles them.\n`);
  }
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('./cli.ts');
}
await cli.main(process.argv.slice(2));
