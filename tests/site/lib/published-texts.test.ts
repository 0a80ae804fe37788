import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { publishTexts, servedText } from '../../../site/src/lib/published-texts.js';

/**
 * The transcripts' long texts reach the built site as texts/KEY.txt, every one the loader
 * stored and nothing else, each byte for byte but for a byte-order mark ahead of any text that is
 * not plain ASCII (so a host that sends .txt without a charset still shows it as UTF-8).
 */
const tmp = await mkdtemp(path.join(tmpdir(), 'rdh-published-texts-'));
afterAll(() => rm(tmp, { recursive: true, force: true }));

describe('publishTexts', () => {
  it('writes every stored text into texts/, a byte-order mark ahead of any beyond ASCII', async () => {
    const data = path.join(tmp, 'data');
    await mkdir(path.join(data, '.views', 'texts'), { recursive: true });
    await mkdir(path.join(data, '.views', 'sessions'), { recursive: true });
    await writeFile(path.join(data, '.views', 'texts', 'a1.txt'), 'plain\nascii\n');
    await writeFile(path.join(data, '.views', 'texts', 'b2.txt'), 'naïve — ✓\n');
    await writeFile(path.join(data, '.views', 'sessions', 'not-a-text.json'), '{}');
    const out = path.join(tmp, 'out');
    expect(await publishTexts(data, out)).toBe(2);
    expect((await readdir(out, { recursive: true })).sort()).toEqual(['texts', 'texts/a1.txt', 'texts/b2.txt']);
    expect(await readFile(path.join(out, 'texts', 'a1.txt'), 'utf8')).toBe('plain\nascii\n');
    expect(await readFile(path.join(out, 'texts', 'b2.txt'))).toEqual(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('naïve — ✓\n')]));
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
