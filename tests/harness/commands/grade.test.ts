import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSpecOracle, runCli } from '../../../harness/index.js';
import { TREE_LIMITS, bufferIo } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';
import { DOCKER_TIMEOUT, REFERENCE, referenceWith, tree, removeScratch } from '../grading/hostile-trees.js';

afterAll(removeScratch);

/** Every failure reason the runner may write: kinds of difference and numbers, nothing else. */
const REASON =
  /^(the program could not be started|timed out|killed by a signal|exit status \d+ is not the expected one|output exceeded the 1 MiB cap|stdout is not UTF-8|stderr is empty, a diagnostic was expected|stderr is not empty|stdout is not empty on an error exit|stdout differs at line \d+|stdout is not a valid (csv|json) result|header differs|\d+ rows, a different number was expected|row \d+ differs|rows differ \(compared in any order\)|not run: (grading aborted|integrity violation))$/;

/** The reference, broken in ways that fail cases of many kinds. */
async function nearMiss(): Promise<string> {
  const output = await readFile(path.join(REFERENCE, 'sqlcsv', 'output.py'), 'utf8');
  const cli = await readFile(path.join(REFERENCE, 'sqlcsv', 'cli.py'), 'utf8');
  const executor = await readFile(path.join(REFERENCE, 'sqlcsv', 'executor.py'), 'utf8');
  return referenceWith({
    'sqlcsv/output.py': output.replace('return "".join(record + "\\n" for record in records)', 'return "".join(record + "\\r\\n" for record in records)').replace('json.dumps(value))', 'json.dumps(str(value)))'),
    'sqlcsv/cli.py': cli.replace('return failure.status', 'return 1'),
    'sqlcsv/executor.py': executor.replace('return names, [record[0] for record in records]', 'return names, [record[0] for record in records][::-1]'),
  });
}

describe('harness grade names its task', () => {
  it('has no default task: without --spec or --manifest it exits 2 with one line naming the tasks under spec/', async () => {
    const io = bufferIo();
    expect(await runCli(['grade', REFERENCE], io)).toBe(2);
    expect(io.stderr()).toMatchInlineSnapshot(`
      "harness: --spec: name the task to grade against (tasks under spec/: commonmark, sqlcsv), or --manifest FILE to take its spec.
      "
    `);
    const both = bufferIo();
    expect(await runCli(['grade', REFERENCE, '--spec', 'sqlcsv', '--manifest', 'manifests/smoke.yaml'], both)).toBe(2);
    expect(both.stderr()).toMatchInlineSnapshot(`
      "harness: --spec and --manifest both name the task; give one of them.
      "
    `);
  });
});

describe.skipIf(!HAS_DOCKER)('harness grade', { timeout: DOCKER_TIMEOUT }, () => {
  it('prints --json (version 2) for scripts', async () => {
    // The text form is the odd trees' grading below (one grading of a tree that earns nothing serves both).
    const json = bufferIo();
    expect(await runCli(['grade', '--spec', 'sqlcsv', REFERENCE, '--json', '--case-timeout', '20000'], json)).toBe(0);
    expect(JSON.parse(json.stdout())).toMatchObject({ version: 2, spec: 'sqlcsv', satisfied: 42, total: 42, skipped: [], undeliverable: null });
  });

  it('refuses a tree that is not a directory with exit code 4', async () => {
    const io = bufferIo();
    expect(await runCli(['grade', '--spec', 'sqlcsv', '/nonexistent/tree'], io)).toBe(4);
    expect(io.stderr()).toMatchInlineSnapshot(`
      "harness: /nonexistent/tree is not a directory; pass the root of the tree to grade.
      "
    `);
  });

  it('0c: grades odd trees (a name that is not UTF-8, a path past PATH_MAX, a FIFO, a socket, a device): skipped with a note, never exit 1; prints per-requirement results and a summary', async () => {
    const dir = await tree({ 'sqlcsv/__init__.py': '', 'sqlcsv/__main__.py': 'raise SystemExit(2)\n', 'test_a.py': 'def test_a(): pass\n', 'pkg/b_test.py': '' });
    await writeFile(Buffer.concat([Buffer.from(`${dir}/sqlcsv/`), Buffer.from([0xc3, 0x28]), Buffer.from('.py')]), '');
    execFileSync('bash', ['-c', `cd "$1" && for i in $(seq 1 40); do mkdir ${'p'.repeat(120)} && cd ${'p'.repeat(120)}; done && echo > deep.py`, '_', dir]);
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', path.join(dir, 'sock')]);
    execFileSync('mknod', [path.join(dir, 'null'), 'c', '1', '3']);
    const io = bufferIo();
    expect(await runCli(['grade', '--spec', 'sqlcsv', dir], io)).toBe(0);
    expect(io.stdout().split('\n').filter((l) => l.startsWith('left out') || l.startsWith('  ')).map((l) => l.replace(/p{120}\/.*/, 'ppp...'))).toMatchInlineSnapshot(`
      [
        "left out of the graded copy: 5 entries",
        "  fifo: not a file, folder or link",
        "  null: not a file, folder or link",
        "  ppp...",
        "  sock: not a file, folder or link",
        "  sqlcsv/\\xc3(.py: name is not UTF-8",
      ]
    `);
    const text = io.stdout();
    expect(text).toMatch(/^R01  FAIL    0\/\d+  /m);
    expect(text).toContain('satisfied 0/42 requirements');
    expect(text).toContain('test files carried by the tree: 2');
  });

  it('0c: scores a tree of more entries than the limit 0 as undeliverable, exit 0', async () => {
    const dir = await tree({});
    execFileSync('bash', ['-c', `cd "$1" && seq 1 ${TREE_LIMITS.entries + 1} | xargs touch`, '_', dir]);
    const io = bufferIo();
    expect(await runCli(['grade', '--spec', 'sqlcsv', dir, '--json'], io)).toBe(0);
    expect(JSON.parse(io.stdout())).toMatchObject({ satisfied: 0, casesPassed: 0, undeliverable: 'the tree has more than 20000 entries', mode: null });
  });

  it('0d: a report never quotes the oracle: reasons name the kind of difference, not the expected output or the arguments', async () => {
    const io = bufferIo();
    expect(await runCli(['grade', '--spec', 'sqlcsv', await nearMiss(), '--json'], io)).toBe(0);
    const text = io.stdout();
    const result = JSON.parse(text) as { satisfied: number; requirements: Array<{ failures: Array<{ reason: string }> }> };
    const reasons = result.requirements.flatMap((r) => r.failures.map((f) => f.reason));
    expect(reasons.length).toBeGreaterThan(50);
    expect(reasons.filter((r) => !REASON.test(r))).toEqual([]);
    const { oracle } = await loadSpecOracle('sqlcsv');
    const quoted: string[] = [];
    for (const c of oracle.cases) {
      for (const a of c.args) if (a.includes(' ') && text.includes(JSON.stringify(a).slice(1, -1))) quoted.push(`${c.id}: argument`);
      for (const line of (c.expect.stdout ?? '').split('\n')) if (line.length >= 8 && text.includes(JSON.stringify(line).slice(1, -1))) quoted.push(`${c.id}: stdout`);
      for (const row of c.expect.result?.rows ?? []) if (row.length > 1 && text.includes(JSON.stringify(row.map(String)).slice(1, -1))) quoted.push(`${c.id}: row`);
    }
    expect(quoted).toEqual([]);
  });

  it('0d: --reveal prints the full differences to a terminal only, and never with --json', async () => {
    const terminal = { ...bufferIo(), isTty: true };
    const shown = bufferIo();
    Object.assign(terminal, { out: shown.out });
    const dir = await nearMiss();
    expect(await runCli(['grade', '--spec', 'sqlcsv', dir, '--reveal'], terminal)).toBe(0);
    expect(shown.stdout()).toContain('failing cases in full (held-out; for this terminal only)');
    expect(shown.stdout()).toContain('R36-csv-quotes-only-special-fields  (stdout differs at line 1)');
    expect(shown.stdout()).toContain('  expected stdout:\n    |id,title,body\n');

    const piped = bufferIo();
    expect(await runCli(['grade', '--spec', 'sqlcsv', dir, '--reveal'], piped)).toBe(2);
    expect(piped.stderr()).toMatchInlineSnapshot(`
      "harness: --reveal prints held-out expectations, so only to a terminal, and standard output is not one; run it in a terminal without redirecting.
      "
    `);
    const json = { ...bufferIo(), isTty: true };
    const jsonErr = bufferIo();
    Object.assign(json, { err: jsonErr.err });
    expect(await runCli(['grade', '--spec', 'sqlcsv', dir, '--reveal', '--json'], json)).toBe(2);
    expect(jsonErr.stderr()).toMatchInlineSnapshot(`
      "harness: --reveal prints held-out expectations and cannot be combined with --json; drop one of them.
      "
    `);
  });
});
