import { beforeAll, describe, expect, it } from 'vitest';
import type { Mutant } from '../../../harness/index.js';
import type { IncludedExample } from '../../../oracle/commonmark/examples.js';
import { includedExamples } from './commonmark-examples.js';
import { commonmarkMutants, measure } from './commonmark-mutants.js';

/**
 * The normaliser proof with real wrong programs: mutants whose bug is in the markup alone (a heading's
 * level, strong rendered as nested emphasis, a code line joined to the wrong block, flattened strong) fail their requirements under
 * normalize.py (mutants-breaks.test.ts) but pass every included example under a lenient normaliser that
 * drops tags and collapses whitespace. A check that grades every mutant therefore catches the lenient one.
 */
const MARKUP_ONLY = [
  'm-setext-dash-is-level-one',
  'm-emphasis-before-strong',
  'm-nested-strong-flattened',
  'm-emphasis-around-emphasis-collapsed',
  'm-lazy-code-in-block-quote',
];

let examples: IncludedExample[];
let mutants: Mutant[];
beforeAll(async () => {
  examples = await includedExamples();
  mutants = (await commonmarkMutants()).filter((m) => MARKUP_ONLY.includes(m.id));
});

describe('a lenient normaliser', () => {
  it('lets wrong programs pass that the real normaliser fails', { timeout: 120_000 }, async () => {
    expect(mutants.map((m) => m.id).sort()).toEqual([...MARKUP_ONLY].sort());
    const rows: string[] = [];
    for (const mutant of mutants) {
      const real = await measure(mutant, examples);
      const lenient = await measure(mutant, examples, true);
      rows.push(`${mutant.id}: fails ${real.failing.length} examples under normalize.py, ${lenient.failing.length} under the lenient one`);
      expect(real.broken, mutant.id).toEqual([...mutant.breaks].sort());
      expect(lenient.failing, mutant.id).toEqual([]);
    }
    console.log(rows.join('\n'));
  });
});
