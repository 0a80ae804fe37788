import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { IncludedExample } from '../../../oracle/commonmark/examples.js';
import { includedExamples, REFERENCE, runReference } from './commonmark-examples.js';

let examples: IncludedExample[];
beforeAll(async () => {
  examples = await includedExamples();
});

describe('the commonmark reference (mdlite)', () => {
  it('passes every included example, and renders each byte for byte as the spec does', () => {
    const results = runReference(examples);
    const failed = results.filter((r) => !r.passed).map((r) => r.number);
    const inexact = results.filter((r) => !r.exact).map((r) => r.number);
    console.log(`reference: ${results.length - failed.length}/${results.length} included examples pass`);
    expect(results.length).toBe(examples.length);
    expect(examples.length).toBeGreaterThan(300);
    expect(failed).toEqual([]);
    expect(inexact).toEqual([]);
  });

  it('runs as python3 -m mdlite: Markdown on stdin (any line ending), UTF-8 HTML on stdout', () => {
    const run = (markdown: string) =>
      execFileSync('python3', ['-m', 'mdlite'], { cwd: REFERENCE, input: markdown, env: { PATH: process.env.PATH } }).toString('utf8');
    expect(run('# Tabs\tand *é*\r\n\r\n> `q` &amp; &#0;\n')).toMatchInlineSnapshot(`
      "<h1>Tabs	and <em>é</em></h1>
      <blockquote>
      <p><code>q</code> &amp; �</p>
      </blockquote>
      "
    `);
    expect(run('')).toBe('');
  });
});
