import { describe, expect, it } from 'vitest';
import { chartSpecs, renderSvg, runFiles } from '../../../harness/index.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { assertPlainSvg } from '../../../site/src/lib/svg-check.js';
import { RunFileInvalidError } from '../../../site/src/lib/run-file-read.js';

/** The site serves, and inlines in a sweep page, only drawings: what vega writes passes, anything that could run, restyle or escape the drawing is refused. */

const GOLDEN = path.resolve(import.meta.dirname, '..', '..', 'harness', 'report', '__snapshots__', 'golden', 'report.json');
const refused = (svg: string) => {
  try {
    assertPlainSvg(svg, 'x.svg');
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(RunFileInvalidError);
    return (error as Error).message;
  }
};

describe('assertPlainSvg', () => {
  it('passes every chart vega draws for a report, tooltips and relative links included', async () => {
    const report = runFiles.Report.parse(JSON.parse(await readFile(GOLDEN, 'utf8')));
    for (const { spec } of chartSpecs(report)) expect(refused((await renderSvg(spec)).svg)).toBeNull();
    expect(refused('<svg><a xlink:href="cells/cap1-rep1-gated/"><path d="M0"><title>a</title></path></a><a href="#row-pooled-1"><rect/></a></svg>')).toBeNull();
  });

  it.each([
    ['<svg><script>alert(1)</script></svg>', 'a script'],
    ['<svg><path onclick="x()"/></svg>', 'an event handler'],
    ['<svg><foreignObject><div>x</div></foreignObject></svg>', 'foreignObject'],
    ['<svg><style>body { display: none }</style></svg>', 'a style element'],
    ['<svg><a href="https://example.com/"><path/></a></svg>', 'outside the file'],
    ['<svg><a xlink:href="//example.com/"><path/></a></svg>', 'outside the file'],
    ['<svg><path fill="url(https://x/y)"/></svg>', 'url()'],
    ['<svg><p>page markup after the drawing</p></svg>', 'a <p> element'],
    ['<svg><image xlink:href="cells/x.png"/></svg>', 'a <image> element'],
    ['<div><svg/></div>', 'not an SVG drawing'],
  ])('refuses %s', (svg, what) => {
    expect(refused(svg)).toContain(what);
  });
});
