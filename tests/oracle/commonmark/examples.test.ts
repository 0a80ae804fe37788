import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRequirements } from '../../../harness/index.js';
import { exclusionReport, loadCommonmarkExamples, loadCoverage, type Coverage } from '../../../oracle/commonmark/examples.js';
import { commonmark, exclusionReason } from '../../../oracle/commonmark/exclusion.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const examples = await loadCommonmarkExamples();
const coverage = await loadCoverage();

/** A copy of coverage.yaml with `edit` applied, for the fail-closed checks. */
function edited(edit: (c: Coverage) => void): Coverage {
  const copy = structuredClone(coverage);
  edit(copy);
  return copy;
}

describe('the commonmark examples recipe', () => {
  it('derives the graded cases from the pinned package, every in-scope example included or excluded', () => {
    const spec = createRequire(import.meta.url)('commonmark-spec') as { tests: { number: number; section: string }[] };
    const inScope = spec.tests.filter((t) => coverage.sections.includes(t.section)).map((t) => t.number);
    const seen = [...examples.included, ...examples.excluded].map((e) => e.number).sort((a, b) => a - b);
    expect(seen).toEqual(inScope);
    expect({ included: examples.included.length, excluded: examples.excluded.length }).toMatchInlineSnapshot(`
      {
        "excluded": 32,
        "included": 343,
      }
    `);
  });

  it('gives at least 30 requirements two or more examples each, with distinct expected outputs', async () => {
    const ids = (await loadRequirements(path.join(ROOT, 'spec/commonmark'))).map((r) => r.id);
    expect(ids.length).toBeGreaterThanOrEqual(30);
    for (const id of ids) {
      const outputs = new Set(examples.included.filter((e) => e.requirement === id).map((e) => e.html));
      expect(outputs.size, id).toBeGreaterThanOrEqual(2);
    }
  });

  it('turns the spec\'s visible tab (→) back into a tab, in input and expected output', () => {
    expect(examples.included.some((e) => e.markdown.includes('→') || e.html.includes('→'))).toBe(false);
    const first = examples.included.find((e) => e.number === 1)!;
    expect(first.markdown.startsWith('\t')).toBe(true);
    // With the arrow left in, example 7 reads as a paragraph; as a tab it is a list item.
    expect(examples.excluded.find((e) => e.number === 7)?.reason).toBe('holds list, item');
  });

  it('prints the exclusion list with a reason for each and a count per reason', () => {
    const report = exclusionReport(examples);
    expect(report.split('\n').slice(-6).join('\n')).toMatchInlineSnapshot(`
      "32 excluded, 343 included; by reason:
        14  holds list, item
         8  holds link
         6  holds html_inline
         2  holds html_block
         2  holds link; defines link reference"
    `);
    for (const e of examples.excluded) expect(report).toContain(`${String(e.number).padStart(4)}  ${e.section}: ${e.reason}`);
  });
});

describe('the exclusion rule', () => {
  it('names every out-of-subset node kind, and keeps autolinks, which commonmark.js builds as links', () => {
    expect(exclusionReason('- a\n')).toBe('holds list, item');
    expect(exclusionReason('[a](/b)\n')).toBe('holds link');
    expect(exclusionReason('![a](/b)\n')).toBe('holds image');
    expect(exclusionReason('<div>\nx\n</div>\n')).toBe('holds html_block');
    expect(exclusionReason('a <b>c</b>\n')).toBe('holds html_inline');
    expect(exclusionReason('<https://a.b/c> and <me@a.b>\n')).toBeUndefined();
    expect(exclusionReason('<https://a.b> [c](/d)\n')).toBe('holds link');
    expect(exclusionReason('# *a* `b`\n\n> c\n')).toBeUndefined();
  });

  it('detects a link reference definition even when nothing uses it or it sits in a block quote', () => {
    expect(exclusionReason('[foo]: /url\n')).toBe('defines link reference [FOO]');
    expect(exclusionReason('> [a]: /u\n> [b]: /v\n')).toBe('defines link references [A] [B]');
    // Not definitions: inside code, or continuing a paragraph.
    expect(exclusionReason('    [foo]: /url\n')).toBeUndefined();
    expect(exclusionReason('text\n[foo]: /url\n')).toBeUndefined();
  });

  it('agrees with an independent reading on every example of the spec: a definition is a [label]: whose text vanishes', () => {
    const spec = createRequire(import.meta.url)('commonmark-spec') as { tests: { number: number; markdown: string }[] };
    const disagree: number[] = [];
    for (const t of spec.tests) {
      const md = t.markdown.replace(/→/g, '\t');
      const html = new commonmark.HtmlRenderer().render(new commonmark.Parser().parse(md));
      const byText = [...md.matchAll(/^[ >]*\[((?:[^\]\\]|\\.)+)\]:/gm)].some((m) => !html.includes(`${m[1]!.split('\n').pop()!.trim()}]:`));
      const byParser = /defines link reference/.test(exclusionReason(md) ?? '');
      if (byText !== byParser) disagree.push(t.number);
    }
    expect(disagree).toEqual([]);
  });
});

describe('the recipe fails closed', () => {
  const refuse = (c: Coverage) => loadCommonmarkExamples({ coverage: c }).then(() => 'loaded', (e: Error & { code?: string }) => `${e.code}: ${e.message}`);

  it('on an included example coverage.yaml does not map', async () => {
    expect(await refuse(edited((c) => (c.requirements.R02 = c.requirements.R02!.filter((n) => n !== 43))))).toMatchInlineSnapshot(`
      "oracle_invalid: coverage.yaml does not match commonmark-spec 0.31.2:
        example 43 (Thematic breaks) is included but mapped to no requirement"
    `);
  });

  it('on a number mapped twice, an excluded number, or a number outside the in-scope sections', async () => {
    expect(await refuse(edited((c) => c.requirements.R03!.push(43)))).toMatchInlineSnapshot(`"oracle_invalid: coverage.yaml: example 43 is mapped to both R02 and R03; each example grades one requirement"`);
    expect(await refuse(edited((c) => c.requirements.R02!.push(57)))).toMatchInlineSnapshot(`
      "oracle_invalid: coverage.yaml does not match commonmark-spec 0.31.2:
        example 57 is mapped to R02 but excluded (holds list, item)"
    `);
    expect(await refuse(edited((c) => c.requirements.R02!.push(300, 9999)))).toMatchInlineSnapshot(`
      "oracle_invalid: coverage.yaml does not match commonmark-spec 0.31.2:
        example 300 (R02) is not an example of an in-scope section
        example 9999 (R02) is not an example of an in-scope section"
    `);
  });

  it('on a requirement id requirements.yaml does not hold, or a section the package does not have', async () => {
    expect(await refuse(edited((c) => (c.requirements.R99 = [1])))).toMatchInlineSnapshot(`"oracle_invalid: coverage.yaml: R99 not in requirements.yaml"`);
    expect(await refuse(edited((c) => c.sections.push('Tables (extension)')))).toMatchInlineSnapshot(`"oracle_invalid: coverage.yaml: sections: Tables (extension) hold no example of commonmark-spec 0.31.2"`);
  });

  it('when the installed commonmark-spec is not the pinned version', async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'cm-pin-'));
    await mkdir(path.join(root, 'node_modules/commonmark-spec'), { recursive: true });
    await writeFile(path.join(root, 'node_modules/commonmark-spec/package.json'), JSON.stringify({ name: 'commonmark-spec', version: '0.30.0' }));
    const message = await loadCommonmarkExamples({ root }).then(() => 'loaded', (e: Error) => e.message);
    expect(message).toMatchInlineSnapshot(`"version: "0.31.2" is pinned but node_modules/commonmark-spec is 0.30.0; run npm ci (or pin the new version and review what it changes)"`);
  });
});
