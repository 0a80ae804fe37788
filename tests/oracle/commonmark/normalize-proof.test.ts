import { beforeAll, describe, expect, it } from 'vitest';
import { commonmark } from '../../../oracle/commonmark/exclusion.js';
import type { IncludedExample } from '../../../oracle/commonmark/examples.js';
import { includedExamples, ORACLE, pythonJson } from './commonmark-examples.js';

/**
 * The normaliser is proven two ways: an independent renderer (commonmark.js) passes every included example
 * under it, so it forgives nothing the spec's rendering needs; and outputs known to be wrong fail under it
 * while a deliberately lenient normaliser (tags dropped, all whitespace collapsed) lets them pass.
 */
const COMPARE = `
import json, os, re, sys
sys.path.insert(0, os.environ["NORMALIZE_DIR"])
from normalize import normalize
def lenient(html):
    return re.sub(r"\\s+", " ", re.sub(r"<[^>]*>", "", html)).strip()
out = []
for got, want in json.load(sys.stdin):
    out.append({"real": normalize(got) == normalize(want), "lenient": lenient(got) == lenient(want)})
print(json.dumps(out))
`;
interface Verdict {
  real: boolean;
  lenient: boolean;
}
const compare = (pairs: [string, string][]) => pythonJson<Verdict[]>(COMPARE, pairs, { NORMALIZE_DIR: ORACLE });

/** Realistic wrong renderings of a correct output, each a bug a converter could have. */
const WRONG: Record<string, (html: string) => string> = {
  'emphasis rendered as strong': (h) => h.replace(/<(\/?)em>/g, '<$1strong>'),
  'strong rendered as emphasis': (h) => h.replace(/<(\/?)strong>/g, '<$1em>'),
  'heading one level too deep': (h) => h.replace(/<(\/?)h([1-5])>/g, (_m, s: string, n: string) => `<${s}h${Number(n) + 1}>`),
  'code block content re-indented': (h) => h.replace(/<pre><code([^>]*)>([^<]*)</g, (_m, a: string, c: string) => `<pre><code${a}>${c.replace(/^/gm, ' ')}<`),
  'paragraph tags left out': (h) => h.replace(/<\/?p>/g, ''),
  'hard break dropped': (h) => h.replace(/<br \/>/g, ''),
  'block quote flattened': (h) => h.replace(/<\/?blockquote>\n?/g, ''),
};

let examples: IncludedExample[];
beforeAll(async () => {
  examples = await includedExamples();
});

describe('the commonmark normaliser', () => {
  it("equates commonmark.js' output with the expected HTML on every included example", () => {
    const render = (md: string) => new commonmark.HtmlRenderer().render(new commonmark.Parser().parse(md));
    const pairs = examples.map((e) => [render(e.markdown), e.html] as [string, string]);
    const verdicts = compare(pairs);
    const unequal = examples.filter((_e, i) => !verdicts[i]!.real).map((e) => e.number);
    console.log(`commonmark.js: ${examples.length - unequal.length}/${examples.length} equal once normalised`);
    expect(examples.length).toBeGreaterThan(300);
    expect(unequal).toEqual([]);
  });

  it('forgives what the spec tooling forgives, and tells apart what it does not', () => {
    const same: [string, string][] = [
      ['<p>a  \t\nb</p>\n', '<p>a b</p>'],
      ['<hr />\n<p>x<br />\ny</p>\n', '<hr><p>x<br>y</p>'],
      ['<a title="t" HREF="u">x</a>', '<a href="u" title="t">x</a>'],
      ['<p>&#34;&#x26;&#60;&#62;&copy;&#169;</p>', '<p>&quot;&amp;&lt;&gt;\u00a9\u00a9</p>'],
      ['\n<blockquote>\n<p>q</p>\n</blockquote>\n', '<blockquote><p>q</p></blockquote>'],
    ];
    const different: [string, string][] = [
      ['<pre><code>a  b\n</code></pre>', '<pre><code>a b\n</code></pre>'],   // whitespace in <pre> counts
      ['<p>"q"</p>', '<p>&quot;q&quot;</p>'],                                  // raw quote is not &quot;
      ['<p><em>a</em></p>', '<p><strong>a</strong></p>'],
      ['<p>a <em>b</em></p>', '<p>a<em> b</em></p>'],                          // space inside inline tags counts
      ['<h1>a</h1>', '<h2>a</h2>'],
    ];
    expect(compare(same).map((v) => v.real)).toEqual(same.map(() => true));
    expect(compare(different).map((v) => v.real)).toEqual(different.map(() => false));
  });

  it('fails known-wrong outputs that a lenient normaliser passes', () => {
    const rows: string[] = [];
    for (const [bug, wrong] of Object.entries(WRONG)) {
      const cases = examples.map((e) => [wrong(e.html), e.html] as [string, string]).filter(([w, h]) => w !== h);
      const verdicts = compare(cases);
      const realPasses = verdicts.filter((v) => v.real).length;
      const lenientPasses = verdicts.filter((v) => v.lenient).length;
      rows.push(`${bug}: ${cases.length} wrong outputs, real passes ${realPasses}, lenient passes ${lenientPasses}`);
      expect(cases.length, bug).toBeGreaterThan(0);
      expect(realPasses, bug).toBe(0);
      expect(lenientPasses, bug).toBeGreaterThan(0);
    }
    console.log(rows.join('\n'));
  });
});
