import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTaskDefinition } from '../../../harness/index.js';
import { undeclaredDependencies } from '../../../oracle/commonmark/dependencies.js';
import { loadCommonmarkExamples, loadCoverage } from '../../../oracle/commonmark/examples.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const task = await loadTaskDefinition(path.join(ROOT, 'spec/commonmark'));
const { included } = await loadCommonmarkExamples();
const coverage = await loadCoverage();

describe('spec/commonmark/task.yaml', () => {
  it('declares every dependency the included examples have on other requirements', () => {
    expect(undeclaredDependencies(included, task.depends_on)).toEqual([]);
  });

  it('declares no dependency no example shows (the list is derived, not padded)', () => {
    const shown = new Set(included.flatMap((e) => undeclaredDependencies([e], {}).map((p) => p.replace(/ \(example \d+\)$/, ''))));
    const declared = Object.entries(task.depends_on).flatMap(([r, deps]) => deps.map((d) => `${r} -> ${d}`));
    expect(declared.filter((p) => !shown.has(p))).toEqual([]);
  });

  it('would catch a dependency left out: paragraphs under headings, emphasis under code spans', () => {
    const without = structuredClone(task.depends_on);
    without.R03 = without.R03!.filter((r) => r !== 'R09');
    without.R15 = without.R15!.filter((r) => r !== 'R31');
    expect(undeclaredDependencies(included, without)).toMatchInlineSnapshot(`
      [
        "R03 -> R09 (example 63)",
        "R15 -> R31 (example 346)",
      ]
    `);
  });

  it('pins the same commonmark-spec version as package.json and coverage.yaml', async () => {
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    const source = task.brief.sources.find((s) => s.package === 'commonmark-spec')!;
    expect([source.version, coverage.package_version, pkg.dependencies['commonmark-spec']]).toEqual(['0.31.2', '0.31.2', '0.31.2']);
    expect(source.strip_examples).toBe(true);
    expect(source.licence).toBe('CC-BY-SA-4.0');
    expect(source.attribution).toMatch(/John MacFarlane.*0\.31\.2|0\.31\.2.*John MacFarlane/);
    expect(source.attribution).toContain('https://creativecommons.org/licenses/by-sa/4.0/');
  });

  it('hands agents the prose of every section that grades an example, and the parsing-strategy appendix', () => {
    const source = task.brief.sources[0]!;
    const graded = [...new Set(included.map((e) => e.section))];
    // "Inlines" is a level-1 heading whose subsections include links, images and raw HTML; its
    // one graded example is a code span, whose section the brief carries.
    expect(graded.filter((s) => !source.sections.includes(s))).toEqual(['Inlines']);
    expect(source.sections).toContain('Appendix: A parsing strategy');
  });
});
