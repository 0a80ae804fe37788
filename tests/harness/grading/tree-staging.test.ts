import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readlink, writeFile, symlink, lstat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TREE_LIMITS, resolveInside, stageTree } from '../../../harness/testing.js';

const tmp = (prefix: string) => mkdtemp(path.join(tmpdir(), prefix));

describe('resolveInside: where a link of the tree leads, without touching the file system', () => {
  const tree = {
    root: '/t',
    kinds: new Map<string, 'file' | 'dir'>([['', 'dir'], ['pkg', 'dir'], ['pkg/real.py', 'file'], ['pkg/sub', 'dir'], ['top.py', 'file']]),
    links: new Map<string, string>([['pkg/alias', 'sub'], ['pkg/a', 'b'], ['pkg/b', 'a']]),
  };

  it.each([
    ['pkg/x.py', 'real.py', 'pkg/real.py'],
    ['pkg/x.py', '../top.py', 'top.py'],
    ['pkg/x.py', '/t/top.py', 'top.py'],
    ['pkg/x', '.', 'pkg'],
    ['pkg/x', 'alias/../real.py', 'pkg/real.py'],
    ['pkg/x', '..', ''],
  ])('%s -> %s stays inside as %s', (link, target, want) => {
    expect(resolveInside(link, target, tree)).toBe(want);
  });

  it.each([
    ['pkg/x.py', '/grade/oracle/expectations.json', 'link leaves the tree'],
    ['pkg/x.py', '../../oracle/expectations.json', 'link leaves the tree'],
    ['pkg/up', '../..', 'link leaves the tree'],
    ['pkg/x.py', '/t/../etc/passwd', 'link leaves the tree'],
    ['pkg/x.py', 'missing.py', 'dangling link'],
    ['pkg/x.py', 'real.py/inner', 'dangling link'],
    ['pkg/x', 'a', 'link loop'],
  ])('%s -> %s is refused: %s', (link, target, why) => {
    expect(resolveInside(link, target, tree)).toEqual({ why });
  });
});

describe('stageTree: the copy that is graded', () => {
  it('keeps links that stay inside (re-made relative), drops the rest and every odd entry, and notes each', async () => {
    const src = await tmp('rdh-stage-src-');
    await mkdir(path.join(src, 'sqlcsv', '__pycache__'), { recursive: true });
    await writeFile(path.join(src, 'sqlcsv', 'real.py'), 'x = 1\n');
    await writeFile(path.join(src, 'sqlcsv', '__pycache__', 'stale.pyc'), 'old');
    await symlink('real.py', path.join(src, 'sqlcsv', 'alias.py'));
    await symlink(path.join(src, 'sqlcsv', 'real.py'), path.join(src, 'sqlcsv', 'absolute_inside.py'));
    await symlink('/grade/oracle/expectations.json', path.join(src, 'sqlcsv', 'leak_abs.py'));
    await symlink('../../oracle/expectations.json', path.join(src, 'sqlcsv', 'leak_rel.py'));
    await symlink('../..', path.join(src, 'sqlcsv', 'up'));
    await symlink('nowhere.py', path.join(src, 'sqlcsv', 'dangling.py'));
    execFileSync('mkfifo', [path.join(src, 'fifo')]);
    execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', path.join(src, 'sock')]);
    await writeFile(Buffer.concat([Buffer.from(`${src}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.py')]), 'y = 2\n');
    // A path longer than PATH_MAX (4096 bytes), made one folder at a time.
    execFileSync('bash', ['-c', `cd "$1" && for i in $(seq 1 40); do mkdir ${'d'.repeat(120)} && cd ${'d'.repeat(120)}; done && echo z > deep.py`, '_', src]);

    const dest = await tmp('rdh-stage-dest-');
    const staged = await stageTree(src, dest);
    expect(staged.undeliverable).toBeNull();
    expect(staged.skipped.sort((a, b) => a.path.localeCompare(b.path)).map((s) => `${s.path.length > 60 ? `${s.path.slice(0, 20)}...` : s.path}: ${s.why}`)).toMatchInlineSnapshot(`
      [
        "bad-\\xff\\xfe.py: name is not UTF-8",
        "dddddddddddddddddddd...: path too long",
        "fifo: not a file, folder or link",
        "sock: not a file, folder or link",
        "sqlcsv/dangling.py: dangling link",
        "sqlcsv/leak_abs.py: link leaves the tree",
        "sqlcsv/leak_rel.py: link leaves the tree",
        "sqlcsv/up: link leaves the tree",
      ]
    `);
    expect(staged.skippedCount).toBe(8);
    expect((await readdir(path.join(dest, 'sqlcsv'))).sort()).toEqual(['absolute_inside.py', 'alias.py', 'real.py']);
    expect(await readlink(path.join(dest, 'sqlcsv', 'alias.py'))).toBe('real.py');
    expect(await readlink(path.join(dest, 'sqlcsv', 'absolute_inside.py'))).toBe('real.py');
    expect((await lstat(path.join(dest, 'sqlcsv', 'real.py'))).isFile()).toBe(true);
  });

  it('scores a tree past the entry limit as undeliverable instead of copying it', async () => {
    const src = await tmp('rdh-stage-many-');
    execFileSync('bash', ['-c', `cd "$1" && mkdir many && cd many && seq 1 ${TREE_LIMITS.entries + 1} | xargs touch`, '_', src]);
    const dest = await tmp('rdh-stage-dest-');
    const staged = await stageTree(src, dest);
    expect(staged.undeliverable).toBe('the tree has more than 20000 entries');
    expect(await readdir(dest)).toEqual([]);
  });

  it('scores a tree past the byte limit as undeliverable', async () => {
    const src = await tmp('rdh-stage-big-');
    await writeFile(path.join(src, 'a.bin'), Buffer.alloc(2048));
    const staged = await stageTree(src, await tmp('rdh-stage-dest-'), { ...TREE_LIMITS, bytes: 1024 });
    expect(staged.undeliverable).toBe('the tree holds more than 1024 bytes');
  });
});
