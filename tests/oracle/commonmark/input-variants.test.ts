import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { inputVariants } from '../../../oracle/commonmark/input-variants.js';
import { loadCoverage, whitespaceOf } from '../../../oracle/commonmark/spec-examples.js';
import { commonmark } from '../../../oracle/commonmark/exclusion.js';
import { ORACLE, REFERENCE, includedExamples, pythonJson } from './commonmark-examples.js';

/**
 * SPEC section 1's line endings (LF, CR, CR LF in; LF only out) and section 4's U+0000, which no
 * example of the spec holds raw, are graded by the variants of input-variants.ts: commonmark.js and
 * the reference both produce each variant's expected HTML, compared as its case will be.
 */
const RUN = `
import json, os, sys
sys.path[:0] = [os.environ["MDLITE_ROOT"], os.environ["NORMALIZE_DIR"]]
from mdlite import convert
from normalize import normalize
out = []
for v in json.load(sys.stdin):
    out.append([normalize(convert(v["markdown"]), v["ws"]) == normalize(v["html"], v["ws"]), normalize(v["other"], v["ws"]) == normalize(v["html"], v["ws"])])
print(json.dumps(out))
`;

describe('the line-ending and NUL cases', () => {
  it('hold CR, CR LF and NUL inputs for every requirement with a multi-line example, passed by commonmark.js and the reference', async () => {
    const coverage = await loadCoverage();
    const variants = inputVariants(await includedExamples(), coverage);
    const kinds = (k: string) => variants.filter((v) => v.key.endsWith(k)).length;
    console.log(`${variants.length} variants: ${kinds('-cr')} CR, ${kinds('-crlf')} CR LF, ${coverage.nul_inputs.length} NUL`);
    expect(kinds('-cr')).toBeGreaterThanOrEqual(20);
    expect(kinds('-crlf')).toBe(kinds('-cr'));
    expect(variants.filter((v) => v.key.endsWith('-cr')).every((v) => v.markdown.includes('\r') && !v.markdown.includes('\n'))).toBe(true);
    expect(variants.filter((v) => v.key.endsWith('-crlf')).every((v) => v.markdown.includes('\r\n'))).toBe(true);
    const render = (md: string) => new commonmark.HtmlRenderer().render(new commonmark.Parser().parse(md));
    const input = variants.map((v) => ({ ...v, ws: whitespaceOf(coverage, v.requirement), other: render(v.markdown) }));
    const verdicts = pythonJson<[boolean, boolean][]>(RUN, input, { MDLITE_ROOT: REFERENCE, NORMALIZE_DIR: ORACLE });
    expect(variants.filter((_v, i) => !verdicts[i]![0]).map((v) => `${v.requirement}-${v.key}`)).toEqual([]);
    expect(variants.filter((_v, i) => !verdicts[i]![1]).map((v) => `${v.requirement}-${v.key}`)).toEqual([]);
  });

  it('fail a converter that reads only line feeds as line endings, or keeps NUL', () => {
    // The reference with its line-ending pattern cut down to \n, and without its NUL replacement.
    const run = (markdown: string) =>
      execFileSync('python3', ['-c', 'import sys, re; sys.path.insert(0, sys.argv[1]); import mdlite.blocks as b; b.LINE_ENDING = re.compile(r"\\n"); src = sys.stdin.read().replace("\\0", "\\1"); from mdlite import convert; sys.stdout.write(convert(src))', REFERENCE], { input: markdown }).toString('utf8');
    expect(run('a\r\nb\n')).not.toBe('<p>a\nb</p>\n');
    expect(run('a\rb\n')).not.toBe('<p>a\nb</p>\n');
  });
});
