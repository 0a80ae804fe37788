import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishTexts, servedText, TextBundle, textsBundle } from '../../../site/src/lib/published-texts.js';

/**
 * The transcripts' long texts reach the built site as texts/KEY.txt, every one the loader
 * stored in a run's bundle and nothing else, each byte for byte but for a byte-order mark ahead of any text that is
 * not plain ASCII (so a host that sends .txt without a charset still shows it as UTF-8).
 */
const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-published-texts-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('publishTexts', () => {
  it('writes every stored text into texts/, a byte-order mark ahead of any beyond ASCII', async () => {
    const data = path.join(tmp, 'data');
    const [a, b, c] = ['a1', 'b2', 'c3'].map((k) => k.repeat(12));
    const first = await TextBundle.create(path.join(data, textsBundle('run-a')));
    await first.add(a!, 'plain\nascii\n');
    await first.add(b!, 'naïve — ✓\n');
    await first.close();
    const second = await TextBundle.create(path.join(data, textsBundle('run-b')));
    await second.add(c!, '{"a JSON": "line"}\r\n');
    await second.close();
    await mkdir(path.join(data, '.views', 'sessions'), { recursive: true });
    await writeFile(path.join(data, '.views', 'sessions', 'not-a-text.jsonl'), '{}');
    const out = path.join(tmp, 'out');
    expect(await publishTexts(data, out)).toBe(3);
    expect((await readdir(out, { recursive: true })).sort()).toEqual(['texts', `texts/${a}.txt`, `texts/${b}.txt`, `texts/${c}.txt`]);
    expect(await readFile(path.join(out, 'texts', `${a}.txt`), 'utf8')).toBe('plain\nascii\n');
    expect(await readFile(path.join(out, 'texts', `${b}.txt`))).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('naïve — ✓\n')]));
    expect(await readFile(path.join(out, 'texts', `${c}.txt`), 'utf8')).toBe('{"a JSON": "line"}\r\n');
  });

  it('keeps one drain listener however many texts wait on a full buffer (Node warns past ten), and loses none of them', async () => {
    const data = path.join(tmp, 'data-many');
    const bundle = await TextBundle.create(path.join(data, textsBundle('run-many')));
    const warnings: string[] = [];
    const warned = (w: Error) => warnings.push(w.name);
    process.on('warning', warned);
    try {
      // Each text fills the stream's buffer (16 KB), so every add after the first waits on a drain.
      const keys = Array.from({ length: 40 }, (_, i) => `e${String(i).padStart(2, '0')}`.repeat(8));
      await Promise.all(keys.map((k) => bundle.add(k, `${k}\n`.repeat(1000))));
      await bundle.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
      expect(await publishTexts(data, path.join(tmp, 'out-many'))).toBe(40);
      expect((await readdir(path.join(tmp, 'out-many', 'texts'))).length).toBe(40);
    } finally {
      process.off('warning', warned);
    }
  });

  it('fails the build, not the process, when a bundle cannot be written', async () => {
    const folder = path.join(tmp, 'a-folder.jsonl');
    await mkdir(folder, { recursive: true });
    const bundle = await TextBundle.create(folder);
    await bundle.add('d4'.repeat(12), 'text').catch(() => undefined);
    await expect(bundle.close()).rejects.toThrow(/EISDIR/);
  });

  it('refuses a bundle line whose key could name another file', async () => {
    const data = path.join(tmp, 'hostile');
    await mkdir(path.join(data, '.views', 'texts'), { recursive: true });
    await writeFile(path.join(data, textsBundle('run')), `${JSON.stringify({ key: '../../index', text: 'x' })}\n`);
    await expect(publishTexts(data, path.join(tmp, 'hostile-out'))).rejects.toThrowErrorMatchingInlineSnapshot(`[Error: .views/texts/run.jsonl: line 1 is not a stored text ({key, text} with a 24-digit hex key)]`);
  });

  it('names the bundle and line of a line that is not JSON', async () => {
    const data = path.join(tmp, 'torn');
    await mkdir(path.join(data, '.views', 'texts'), { recursive: true });
    await writeFile(path.join(data, textsBundle('run')), `${JSON.stringify({ key: 'e5'.repeat(12), text: 'x' })}\n{"key": "torn`);
    await expect(publishTexts(data, path.join(tmp, 'torn-out'))).rejects.toThrowErrorMatchingInlineSnapshot(`[Error: .views/texts/run.jsonl: line 2 is not a stored text ({key, text} with a 24-digit hex key)]`);
  });

  it('writes nothing, and no texts/ folder, for a site without stored texts', async () => {
    const out = path.join(tmp, 'empty-out');
    expect(await publishTexts(path.join(tmp, 'no-data'), out)).toBe(0);
    await expect(readdir(out)).rejects.toThrow();
  });

  it('marks a text beyond ASCII only', () => {
    expect([servedText('abc'), servedText('\u00e9')]).toEqual(['abc', '\uFEFF\u00e9']);
  });
});
