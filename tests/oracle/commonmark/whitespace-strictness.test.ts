import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyMutants, type Mutant } from '../../../harness/index.js';
import type { IncludedExample } from '../../../oracle/commonmark/examples.js';
import { commonmark } from '../../../oracle/commonmark/exclusion.js';
import { ORACLE, REFERENCE, includedExamples, pythonJson, runReference } from './commonmark-examples.js';

/**
 * The comparison is as strict as the requirement (coverage.yaml `whitespace_exact`): a tree that
 * differs from the reference only in whitespace the spec's examples make matter fails the requirements
 * about that whitespace, while the reference and commonmark.js still pass every example.
 */
const DEMONSTRATOR: Mutant = {
  id: 'm-whitespace-demonstrator',
  description: 'outside <pre>, soft line breaks joined with spaces and runs of spaces collapsed, code spans included',
  breaks: ['R09', 'R15', 'R33'],
  patch: [
    { file: 'mdlite/render.py', find: 'from .entities import escape_html\n', replace: 'import re\n\nfrom .entities import escape_html\n' },
    { file: 'mdlite/render.py', find: 'out.append(escape_html(node.literal))', replace: 'out.append(re.sub(" +", " ", escape_html(node.literal)))' },
    { file: 'mdlite/render.py', find: 'out.append("<code>" + escape_html(node.literal) + "</code>")', replace: 'out.append("<code>" + re.sub(" +", " ", escape_html(node.literal)) + "</code>")' },
    { file: 'mdlite/render.py', find: 'out.append("\\n")', replace: 'out.append(" ")' },
  ],
};

let examples: IncludedExample[];
beforeAll(async () => {
  examples = await includedExamples();
});

const brokenBy = (results: { number: number; passed: boolean }[]) => {
  const requirementOf = new Map(examples.map((e) => [e.number, e.requirement]));
  return [...new Set(results.filter((r) => !r.passed).map((r) => requirementOf.get(r.number)!))].sort();
};

describe('whitespace the spec distinguishes', () => {
  it('fails the demonstrator tree on R09, R15 and R33, which the spec tooling alone lets pass 33/33; the reference passes all', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'cm-demo-'));
    try {
      await applyMutants(REFERENCE, [DEMONSTRATOR], dir);
      expect(await readFile(path.join(dir, 'mdlite/render.py'), 'utf8')).toContain('re.sub(" +"');
      const strict = brokenBy(runReference(examples, dir));
      const forgiving = brokenBy(runReference(examples.map((e) => ({ ...e, whitespace: 'spec' as const })), dir));
      console.log(`demonstrator fails ${strict.join(', ')}; under the spec tooling alone: ${forgiving.join(', ') || 'nothing'}`);
      expect(strict).toEqual(expect.arrayContaining(['R09', 'R15', 'R33']));
      expect(forgiving).toEqual([]);
      expect(brokenBy(runReference(examples))).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("holds commonmark.js' output equal to every example's in its requirement's mode", () => {
    const render = (md: string) => new commonmark.HtmlRenderer().render(new commonmark.Parser().parse(md));
    const verdicts = compare(examples.map((e) => [render(e.markdown), e.html, e.whitespace]));
    expect(examples.filter((e) => e.whitespace === 'exact').length).toBeGreaterThan(50);
    expect(examples.filter((_e, i) => !verdicts[i]).map((e) => e.number)).toEqual([]);
  });

  it('compares whitespace exactly in text and forgives only the line feeds between blocks', () => {
    const pairs: [string, string, string][] = [
      ['<p>a\nb</p>\n<p>c</p>\n', '<p>a\nb</p><p>c</p>', 'exact'],                  // between blocks: layout
      ['\n<blockquote>\n<p>q</p>\n</blockquote>\n', '<blockquote><p>q</p></blockquote>', 'exact'],
      ['<p>a<br />\nb</p>', '<p>a<br>\nb</p>', 'exact'],                             // self-closing still forgiven
      ['<p>a b</p>', '<p>a\nb</p>', 'exact'],                                        // a soft break is a line feed
      ['<p><code>a  b</code></p>', '<p><code>a b</code></p>', 'exact'],               // example 337
      ['<p> a</p>', '<p>a</p>', 'exact'],
      ['<h1>a </h1>', '<h1>a</h1>', 'exact'],
      ['<p>a<br />b</p>', '<p>a<br />\nb</p>', 'exact'],
      ['<p>a b</p>', '<p>a\nb</p>', 'spec'],                                         // the spec tooling forgives these
      ['<p><code>a  b</code></p>', '<p><code>a b</code></p>', 'spec'],
    ];
    expect(compare(pairs)).toEqual([true, true, true, false, false, false, false, false, true, true]);
  });

  it('reads &#X22; as the spec tooling does (not a reference: only a lower-case x is), and &#x22; as a quote', () => {
    expect(compare([
      ['<p>&#X22;</p>', '<p>&quot;</p>', 'spec'],
      ['<p>&#x22;</p>', '<p>&quot;</p>', 'spec'],
      ['<p>&#X22;</p>', '<p>&#X22;</p>', 'spec'],
    ])).toEqual([false, true, true]);
  });
});

const COMPARE = `
import json, os, sys
sys.path.insert(0, os.environ["NORMALIZE_DIR"])
from normalize import normalize
print(json.dumps([normalize(got, ws) == normalize(want, ws) for got, want, ws in json.load(sys.stdin)]))
`;
function compare(pairs: [string, string, string][]): boolean[] {
  return pythonJson<boolean[]>(COMPARE, pairs, { NORMALIZE_DIR: ORACLE });
}

