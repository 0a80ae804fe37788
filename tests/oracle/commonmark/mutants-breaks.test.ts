import { beforeAll, describe, expect, it } from 'vitest';
import { loadRequirements, type Mutant } from '../../../harness/index.js';
import type { IncludedExample } from '../../../oracle/commonmark/examples.js';
import { includedExamples, ROOT } from './commonmark-examples.js';
import { commonmarkMutants, measure } from './commonmark-mutants.js';
import path from 'node:path';

/**
 * Every mutant of the commonmark reference fails exactly the requirements it declares (run locally over
 * every included example, one interpreter per mutant; the graded check goes through Docker in
 * `harness task check`), and every requirement has a mutant that fails it alone.
 */
let examples: IncludedExample[];
let mutants: Mutant[];
let requirementIds: string[];
beforeAll(async () => {
  examples = await includedExamples();
  mutants = await commonmarkMutants();
  requirementIds = (await loadRequirements(path.join(ROOT, 'spec', 'commonmark'))).map((r) => r.id);
});

describe('the commonmark mutants', () => {
  it('each fails exactly the requirements it declares', { timeout: 300_000 }, async () => {
    const wrong: string[] = [];
    for (const mutant of mutants) {
      const { broken } = await measure(mutant, examples);
      const declared = [...mutant.breaks].sort();
      if (broken.join() !== declared.join()) wrong.push(`${mutant.id}: declared ${declared.join(',')}, fails ${broken.join(',') || 'nothing'}`);
    }
    expect(wrong).toEqual([]);
  });

  it('cover every requirement with a mutant that breaks it alone, and name only known requirements', () => {
    const alone = new Set(mutants.filter((m) => m.breaks.length === 1).map((m) => m.breaks[0]));
    expect(requirementIds.filter((id) => !alone.has(id))).toEqual([]);
    expect(mutants.flatMap((m) => m.breaks).filter((id) => !requirementIds.includes(id))).toEqual([]);
    expect(new Set(mutants.map((m) => m.id)).size).toBe(mutants.length);
    // No requirement of this task is about output layout alone, so no mutant may claim to be one.
    expect(mutants.filter((m) => m.output !== false).map((m) => m.id)).toEqual([]);
    const single = mutants.filter((m) => m.breaks.length === 1).length;
    console.log(`${mutants.length} mutants, ${single} break exactly one requirement, ${requirementIds.length} requirements covered alone`);
  });
});
