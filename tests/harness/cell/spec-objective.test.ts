import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { licenceNotice, loadTaskDefinition, pinnedPackageDir, renderBriefSource, specDir } from '../../../harness/index.js';
import { specObjective } from '../../../harness/testing.js';
import { loadCommonmarkExamples } from '../../../oracle/commonmark/examples.js';

describe('the objective every node is handed', () => {
  it('is SPEC.md alone for a task with no brief sources', async () => {
    const objective = await specObjective(specDir('sqlcsv'));
    expect(objective.context).toBe(await readFile(path.join(specDir('sqlcsv'), 'SPEC.md'), 'utf8'));
  });

  it("carries SPEC.md, then each brief source's text between its licence notices, with no example of the package", async () => {
    const dir = specDir('commonmark');
    const [objective, task, spec] = await Promise.all([specObjective(dir), loadTaskDefinition(dir), readFile(path.join(dir, 'SPEC.md'), 'utf8')]);
    expect(objective.context.startsWith(spec.trimEnd())).toBe(true);
    const notice = licenceNotice(task.brief.sources[0]!);
    expect(objective.context.split(notice).length - 1).toBe(2);
    expect(objective.context).not.toContain('```````````````````````````````` example');
    expect(objective.requirements.length).toBeGreaterThanOrEqual(30);
  });
});

interface Example {
  number: number;
  markdown: string;
  html: string;
}

/**
 * Thresholds, measured on the 0.31.2 brief (SPEC.md plus the stripped prose). The prose itself
 * quotes short inputs as illustrations (`**foo **bar baz**`, 17 characters, is the longest), so a
 * one-line markdown block counts from 20 characters; a block of two lines or more never occurs in
 * prose, so it counts at any length. Expected HTML: `<hr />` (6) is a convention SPEC.md states,
 * so a whole output counts from 8 characters, and one line of it from 15 (the longest that
 * occurs is a bare tag, `<a href="bar">`, 14). Below those, a piece says nothing an agent could
 * not read off the prose: the held-out information is an input paired with its output.
 */
const MARKDOWN_LINE_MIN = 20;
const HTML_MIN = 8;
const HTML_LINE_MIN = 15;

/** Every way `text` carries an example: an included one's expected HTML, any one's markdown block. */
function exampleLeaks(text: string, all: Example[], included: Set<number>): string[] {
  // spec.txt shows a tab as →; the oracle's cases carry a real tab: either form counts.
  const forms = (s: string) => [s, s.replace(/→/g, '\t')];
  const has = (s: string) => forms(s).some((f) => text.includes(f));
  const leaks: string[] = [];
  for (const e of all) {
    const md = e.markdown.trim();
    if ((md.includes('\n') || md.length >= MARKDOWN_LINE_MIN) && has(md)) leaks.push(`example ${e.number}: its markdown`);
    if (!included.has(e.number)) continue;
    const html = e.html.trim();
    if (html.length >= HTML_MIN && has(html)) leaks.push(`example ${e.number}: its expected HTML`);
    else if (html.split('\n').some((l) => l.length >= HTML_LINE_MIN && has(l))) leaks.push(`example ${e.number}: a line of its expected HTML`);
  }
  return leaks;
}

/**
 * No expected HTML reaches a prompt: checked on the objective itself, the exact text every
 * prompt carries. tests/harness/task/brief-sources.test.ts checks the rendered source alone for
 * included HTML; this adds SPEC.md, the joined objective, and every example's markdown.
 */
describe('the commonmark objective carries no example of the package', async () => {
  const dir = specDir('commonmark');
  const [objective, task, { included }] = await Promise.all([specObjective(dir), loadTaskDefinition(dir), loadCommonmarkExamples()]);
  const source = task.brief.sources[0]!;
  const all = createRequire(import.meta.url)(path.join(await pinnedPackageDir(source), 'index.js')).tests as Example[];
  const graded = new Set(included.map((e) => e.number));

  it('neither an included expected HTML nor an example markdown block of a length that matters', () => {
    expect(all.length).toBeGreaterThan(600);
    expect(graded.size).toBeGreaterThan(200);
    expect(exampleLeaks(objective.context, all, graded)).toEqual([]);
  });

  it('would catch a planted example, whole or as one line of HTML, in either tab form', () => {
    const multi = all.find((e) => graded.has(e.number) && e.markdown.trim().includes('\n') && e.markdown.includes('→'))!;
    const line = all.find((e) => graded.has(e.number) && e.html.trim().length >= 40)!;
    const planted = [objective.context, multi.markdown.replace(/→/g, '\t'), multi.html, line.html.split('\n').find((l) => l.length >= HTML_LINE_MIN)!].join('\n');
    expect({ multi: multi.number, line: line.number, found: exampleLeaks(planted, all, graded) }).toMatchInlineSnapshot(`
      {
        "found": [
          "example 3: its markdown",
          "example 3: its expected HTML",
          "example 6: a line of its expected HTML",
        ],
        "line": 6,
        "multi": 3,
      }
    `);
  });

  it('would catch the brief read without strip_examples', async () => {
    const leaks = exampleLeaks(await renderBriefSource({ ...source, strip_examples: false }), all, graded);
    expect(leaks.filter((l) => l.endsWith('its markdown')).length).toBeGreaterThan(150);
    expect(leaks.filter((l) => l.endsWith('its expected HTML')).length).toBeGreaterThan(200);
  });
});
