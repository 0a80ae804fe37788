import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRequirements } from '../../../harness/index.js';
import { formsUsed, statedForms, unstatedForms } from '../../../oracle/commonmark/conventions.js';
import { loadCommonmarkExamples } from '../../../oracle/commonmark/examples.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const SPEC = await readFile(path.join(ROOT, 'spec/commonmark/SPEC.md'), 'utf8');
const { included } = await loadCommonmarkExamples();

describe('SPEC.md states every convention the graded HTML relies on', () => {
  it('lists every tag form and character reference of every included example', () => {
    expect(unstatedForms(included, statedForms(SPEC))).toEqual([]);
  });

  it('lists no form the graded HTML never uses (so the table is not padded to pass)', () => {
    const used = new Set(included.flatMap((e) => formsUsed(e.html)));
    expect([...statedForms(SPEC)].filter((f) => !used.has(f))).toEqual([]);
  });

  it('would catch an unstated form, a bare < or & and an attribute it does not list', () => {
    const stated = statedForms(SPEC);
    const planted = [
      { number: 1, html: '<hr>\n' },
      { number: 2, html: '<p>a &#39; b &nbsp;</p>\n' },
      { number: 3, html: '<p>1 < 2 & 3</p>\n' },
      { number: 4, html: '<pre><code class="x" data-line="1">y</code></pre>\n' },
    ];
    expect(unstatedForms(planted, stated)).toMatchInlineSnapshot(`
      [
        "<hr> (first in example 1)",
        "&#39; (first in example 2)",
        "&nbsp; (first in example 2)",
        "< (first in example 3)",
        "& (first in example 3)",
        "<code class="…" data-line="…"> (first in example 4)",
      ]
    `);
  });

  it('lists the requirements of requirements.yaml, with their titles, in order', async () => {
    const rows = [...SPEC.matchAll(/^\| (R\d{2}) \| (.+) \|$/gm)].map((m) => ({ id: m[1], title: m[2] }));
    const requirements = (await loadRequirements(path.join(ROOT, 'spec/commonmark'))).map((r) => ({ id: r.id, title: r.title }));
    expect(rows).toEqual(requirements);
  });

  it('carries no graded expected HTML or input of more than 20 characters (SPEC.md reaches the brief)', () => {
    const leaks = included.filter((e) => [e.html, e.markdown].some((t) => t.trim().length > 20 && SPEC.includes(t.trim())));
    expect(leaks.map((e) => e.number)).toEqual([]);
  });
});
