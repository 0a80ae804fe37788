import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepSections, loadTaskDefinition, pinnedPackageDir, renderBriefSource, stripExamples, type BriefSource } from '../../../harness/index.js';
import { loadCommonmarkExamples } from '../../../oracle/commonmark/examples.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const FENCE = '`'.repeat(32);
const DOC = [
  '# One',
  'one prose',
  '## One A',
  'one a prose',
  `${FENCE} example`,
  '# not a heading',
  '.',
  '<h1>not a heading</h1>',
  FENCE,
  '### One A i',
  'one a i prose',
  '## One B',
  'one b prose',
  '```',
  '## inside a code fence',
  '```',
  '# Two',
  'two prose',
].join('\n');

/** A package in a temporary node_modules, to read from without the real one. */
async function fakePackage(version: string, files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'brief-src-'));
  const dir = path.join(root, 'node_modules', 'toy-spec');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'toy-spec', version }));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(dir, name), text);
  return root;
}
const toy = (over: Partial<BriefSource> = {}): BriefSource => ({ package: 'toy-spec', version: '1.0.0', file: 'spec.txt', sections: ['One A'], strip_examples: true, licence: 'CC-BY-SA-4.0', attribution: 'From Toy Spec 1.0.0 by A. Author.', ...over });
const message = (p: Promise<unknown>) => p.then(() => 'no error', (e: Error & { code?: string }) => `${e.code}: ${e.message}`);

describe('brief sources', () => {
  it('keeps the named sections with their subsections and drops the rest', () => {
    const kept = keepSections(stripExamples(DOC.split('\n')), ['One A', 'Two']).join('\n');
    expect(kept).toMatchInlineSnapshot(`
      "## One A
      one a prose
      ### One A i
      one a i prose
      # Two
      two prose"
    `);
  });

  it('does not take a heading-like line inside a code fence for a heading', () => {
    expect(keepSections(DOC.split('\n'), ['One B']).join('\n')).toContain('## inside a code fence');
    expect(() => keepSections(DOC.split('\n'), ['inside a code fence'])).toThrow(/not a heading/);
  });

  it('removes every example block, input and output', () => {
    const text = stripExamples(DOC.split('\n')).join('\n');
    expect(text).not.toContain('not a heading');
    expect(text).not.toContain(FENCE);
    expect(() => stripExamples([`${FENCE} example`, 'a', '.', 'b'])).toThrow(/never closes/);
  });

  it('attaches the attribution and licence before and after the text', async () => {
    const root = await fakePackage('1.0.0', { 'spec.txt': DOC });
    const text = await renderBriefSource(toy(), { root });
    const notice = 'From Toy Spec 1.0.0 by A. Author. Licence: CC-BY-SA-4.0. Sections carried: One A, with every example removed.';
    expect(text.startsWith(`<!-- toy-spec 1.0.0 spec.txt -->\n${notice}\n`)).toBe(true);
    expect(text.trimEnd().endsWith(notice)).toBe(true);
    expect(text).toContain('one a i prose');
    expect(text).not.toContain('one b prose');
  });

  it('refuses, naming the field, a missing package, a different version, a missing file or section', async () => {
    const root = await fakePackage('1.0.1', { 'spec.txt': DOC });
    expect(await message(renderBriefSource(toy(), { root }))).toMatchInlineSnapshot(`"spec_invalid: version: "1.0.0" is pinned but node_modules/toy-spec is 1.0.1; run npm ci (or pin the new version and review what it changes)"`);
    expect(await message(pinnedPackageDir(toy({ package: 'absent-spec' }), { root }))).toMatchInlineSnapshot(`"spec_invalid: package: "absent-spec" is not installed (no node_modules/absent-spec/package.json); run npm ci"`);
    expect(await message(pinnedPackageDir(toy({ package: '../escape' }), { root }))).toMatchInlineSnapshot(`"spec_invalid: package: "../escape" is not an npm package name"`);
    const pinned = await fakePackage('1.0.0', { 'spec.txt': DOC });
    expect(await message(renderBriefSource(toy({ file: 'other.txt' }), { root: pinned }))).toMatchInlineSnapshot(`"spec_invalid: file: "other.txt" is not in node_modules/toy-spec"`);
    expect(await message(renderBriefSource(toy({ sections: ['One A', 'Three'] }), { root: pinned }))).toMatchInlineSnapshot(`"spec_invalid: sections: "Three" is not a heading of the file"`);
  });

  describe('for commonmark', async () => {
    const task = await loadTaskDefinition(path.join(ROOT, 'spec/commonmark'));
    const text = await renderBriefSource(task.brief.sources[0]!);
    const { included } = await loadCommonmarkExamples();

    it('carries no example: no example fence, and no included expected HTML longer than 20 characters', () => {
      expect(text).not.toMatch(/^`{32}/m);
      const leaks = included.filter((e) => e.html.trim().length > 20 && text.includes(e.html.trim()));
      // Line by line too: an example's output might survive as a piece of prose.
      const lines = included.flatMap((e) => e.html.split('\n').filter((l) => l.length > 20 && text.includes(l)).map(() => e.number));
      expect([...leaks.map((e) => e.number), ...lines]).toEqual([]);
    });

    it('would carry them without strip_examples (the check can fail)', async () => {
      const unstripped = await renderBriefSource({ ...task.brief.sources[0]!, strip_examples: false });
      expect(included.filter((e) => e.html.trim().length > 20 && unstripped.includes(e.html.trim())).length).toBeGreaterThan(200);
    });

    it('keeps the graded sections and the appendix, and leaves out links, lists and HTML', () => {
      const headings = [...text.matchAll(/^#{1,2} (.*)$/gm)].map((m) => m[1]);
      expect(headings).toEqual(expect.arrayContaining(['Emphasis and strong emphasis', 'Block quotes', 'Appendix: A parsing strategy', 'Phase 2: inline structure']));
      for (const out of ['Links', 'Images', 'Raw HTML', 'HTML blocks', 'Lists', 'List items', 'Link reference definitions']) expect(headings).not.toContain(out);
      expect(text).toContain('John MacFarlane');
      expect(text).toContain('https://creativecommons.org/licenses/by-sa/4.0/');
    });
  });
});
