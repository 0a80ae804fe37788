import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runFiles } from '../../harness/index.js';
import { headline } from '../../site/src/lib/headline.js';
import { repositoryOf, reproduceSteps } from '../../site/src/lib/reproduce-steps.js';

/**
 * The sweep page's reproduce steps, from a fresh machine: the clone address is package.json's
 * (none declared: the step says where to declare it), and the steps run. On the committed
 * example they are run as far as a machine without network can: the clone (of this repository,
 * by its path), the checkout of the recorded commit (whose manifest must hash to the report's
 * sha256), the harness at that commit answering the record command with its --out, and its
 * sandbox subcommand, with this checkout's node_modules standing in for `npm ci`.
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
const sh = promisify(execFile);
let tmp: string | undefined;
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe('the reproduce steps', () => {
  it('take the clone address from package.json, and say where to declare one when there is none', async () => {
    expect(repositoryOf({ repository: 'git+https://example.invalid/rdh.git' })).toBe('https://example.invalid/rdh.git');
    expect(repositoryOf({ repository: { type: 'git', url: 'ssh://git@example.invalid/rdh.git' } })).toBe('ssh://git@example.invalid/rdh.git');
    expect(repositoryOf({ repository: '  ' })).toBeNull();
    expect(repositoryOf({})).toBeNull();
    const input = { manifest: 'manifests/smoke.yaml', commit: 'abc123', run: 'r', simulated: true };
    expect(reproduceSteps(input, null)[0]).toEqual({ say: 'Clone the harness. Its package.json declares no repository address; set its "repository" field to publish one here', command: null });
    expect(reproduceSteps(input, "/a path/with 'quote'")[0]!.command).toBe(`git clone '/a path/with '\\''quote'\\''' recursion-depth-harness && cd recursion-depth-harness`);
    // This repository's own package.json: the block uses its value, whatever it is.
    const declared = repositoryOf(JSON.parse(await readFile(path.join(REPO, 'package.json'), 'utf8')));
    const first = reproduceSteps(input, declared)[0]!;
    if (declared) expect(first.command).toContain(declared);
    else expect(first.command).toBeNull();
    expect(reproduceSteps(input, null).map((s) => s.command)).toEqual([null, 'git checkout abc123', 'npm ci', 'npm run harness -- sandbox build', 'npm run harness -- record manifests/smoke.yaml --out runs/r-again']);
  });

  it('run on a fresh clone of the committed example\'s commit: clone, checkout (its manifest hashes to the report\'s), the record command with --out and the sandbox step answer', async () => {
    const runDir = path.join(REPO, 'runs', 'example-sim');
    if (!(await stat(path.join(runDir, 'report', 'report.json')).then(() => true, () => false))) return;
    const report = runFiles.Report.parse(JSON.parse(await readFile(path.join(runDir, 'report', 'report.json'), 'utf8')));
    const h = headline(report, REPO);
    const steps = h.reproduce.steps.map((s) => s.command!);
    expect(steps.every((c) => typeof c === 'string')).toBe(true);
    tmp = await mkdtemp(path.join(tmpdir(), 'rdh-reproduce-'));
    // 1, 2: the clone (of this repository by its path: no network) and the checkout, run as printed.
    await sh('bash', ['-c', `${steps[0]} && ${steps[1]}`], { cwd: tmp, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    const clone = path.join(tmp, 'recursion-depth-harness');
    expect((await sh('git', ['rev-parse', 'HEAD'], { cwd: clone })).stdout.trim()).toBe(report.sweep.code.commit);
    const manifest = await readFile(path.join(clone, h.reproduce.manifest));
    expect(createHash('sha256').update(manifest).digest('hex')).toBe(report.sweep.manifestSha256);
    // 3: npm ci installs from the lock file the commit carries; this checkout's node_modules stands in for it (no network here).
    expect(steps[2]).toBe('npm ci');
    await stat(path.join(clone, 'package-lock.json'));
    await symlink(path.join(REPO, 'node_modules'), path.join(clone, 'node_modules'));
    // 4, 5: the sandbox step and the record command, with --out, are what the harness at that commit accepts.
    const help = async (args: string[]) => (await sh(path.join(REPO, 'node_modules', '.bin', 'tsx'), ['harness/cli.ts', ...args, '--help'], { cwd: clone })).stdout;
    expect(steps[3]).toBe('npm run harness -- sandbox build');
    // The sandbox subcommand at that commit (read, not run: its --help costs a second start of the CLI, and building needs Docker).
    expect(await readFile(path.join(clone, 'harness', 'commands', 'sandbox.ts'), 'utf8')).toContain(".command('build')");
    const record = /^npm run harness -- record (\S+) --out (\S+)$/.exec(steps[4]!)!;
    expect(record[1]).toBe(h.reproduce.manifest);
    expect(await help(['record'])).toContain('--out <dir>');
  }, 120_000);
});
