import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../harness/index.js';

const run = promisify(execFile);
const DIST_CLI = path.join(REPO_ROOT, 'dist', 'harness', 'cli.js');
const built = existsSync(DIST_CLI);
// dist/ is built by `npm ci` (prepare) and `npm run build`; in CI its absence is a failure, elsewhere a loud skip.
if (!built && !process.env.CI) console.warn('\n!!! tests/harness/bin.test.ts SKIPPED: dist/ is not built (npm run build)\n');

describe.skipIf(!built && !process.env.CI)('the compiled CLI (dist/, what the harness binary runs)', () => {
  const version = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  it('prints package.json\'s version, compiled and through the binary', async () => {
    expect(built).toBe(true);
    expect(await run(process.execPath, [DIST_CLI, '--version'], { cwd: '/' })).toEqual({ stdout: `${version}\n`, stderr: '' });
    expect((await run(process.execPath, [path.join(REPO_ROOT, 'harness', 'bin.js'), '-V'], { cwd: '/' })).stdout).toBe(`${version}\n`);
  });

  it('finds its non-TypeScript assets from the package root, not from dist/', async () => {
    const probe = `
      const { promptFor } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/engine/runtime/prompts.js'))});
      const { CORPORA_DIR } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/harness/sim/corpus-files.js'))});
      const { REPO_ROOT, runnerDir } = await import(${JSON.stringify(path.join(REPO_ROOT, 'dist/harness/paths.js'))});
      console.log(JSON.stringify({ prompt: promptFor('worker').length > 0, corpora: CORPORA_DIR, root: REPO_ROOT, runner: runnerDir() }));`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', probe], { cwd: '/' });
    expect(JSON.parse(stdout)).toEqual({ prompt: true, corpora: path.join(REPO_ROOT, 'harness/sim/corpus'), root: REPO_ROOT, runner: path.join(REPO_ROOT, 'oracle/runner') });
  });
});
