import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SimParams, branchingTable, collapseOf, plantedText } from '../../../harness/index.js';

describe('SimParams: the simulated: block', () => {
  it('fills every default from an empty block', () => {
    expect(SimParams.parse(undefined)).toMatchInlineSnapshot(`
      {
        "branching": {
          "2": 0.5,
          "3": 0.5,
        },
        "early_leaf_rate": 0.1,
        "judge_recall": 0.8,
        "leaf_defect_rate": 0.2,
        "non_delivery_rate": 0.05,
        "repair_rate": 0.6,
        "seam_defect_rate": 0.15,
        "seed": 1,
        "self_review_recall": 0.3,
        "unresolved_claim_rate": 0.05,
      }
    `);
  });

  it('documents every field with its default and when it is drawn', () => {
    const schema = z.toJSONSchema(SimParams, { io: 'input' }) as { properties: Record<string, { description?: string }> };
    const undocumented = Object.entries(schema.properties).filter(([, p]) => !/Default /.test(p.description ?? '') || !/draw/i.test(p.description ?? ''));
    expect(undocumented.map(([k]) => k)).toEqual([]);
    // bound_replan_rate's default is applied where it is read (replanRateOf), so manifests without it keep their digest;
    // `collapse` is the one optional block: absent means off, so it has no parsed default.
    expect(Object.keys(schema.properties).sort()).toEqual([...Object.keys(SimParams.parse({})), 'bound_replan_rate', 'collapse'].sort());
    expect(schema.properties.seam_defect_rate!.description).toMatch(/once per merge and child, at the first merge attempt only.*uniformly.*already defective, nothing changes/);
  });

  it('refuses bad rates and branching with the field and the fix', () => {
    const problems = (input: unknown) => SimParams.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems({ judge_recall: 1.5, branching: { 1: 1 } })).toMatchInlineSnapshot(`
      [
        "judge_recall: Too big: expected number to be <=1",
        "branching.1: "1" is not a child count; use whole numbers of at least 2 as keys, e.g. {2: 0.5, 3: 0.5}",
      ]
    `);
    expect(problems({ branching: { 2: 0.5, 3: 0.4 } })).toMatchInlineSnapshot(`
      [
        "branching: probabilities sum to 0.9, not 1; scale them so they sum to 1",
      ]
    `);
    expect(problems({ branching: {} })).toMatchInlineSnapshot(`
      [
        "branching: is empty; give at least one child count, e.g. {2: 0.5, 3: 0.5}",
      ]
    `);
    expect(problems({ leaf_defect_rate: 0.2, typo_rate: 1 })).toMatchInlineSnapshot(`
      [
        ": Unrecognized key: "typo_rate"",
      ]
    `);
  });

  it('keeps the collapse mode off unless declared, and names it in the planted text when it is', () => {
    expect(collapseOf(SimParams.parse({}))).toEqual({ rate: 0, severity: 0 });
    expect(plantedText(SimParams.parse({}))).not.toContain('collapse');
    expect(plantedText(SimParams.parse({ collapse: { rate: 0.1, severity: 0.5 } }))).toMatch(/, collapse \{rate 0\.1, severity 0\.5\}$/);
    const problems = (input: unknown) => SimParams.safeParse(input).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(problems({ collapse: { rate: 1.2 } })).toMatchInlineSnapshot(`
      [
        "collapse.rate: Too big: expected number to be <=1",
        "collapse.severity: Invalid input: expected number, received undefined",
      ]
    `);
  });

  it('reads the branching distribution as sorted child counts', () => {
    expect(branchingTable(SimParams.parse({ branching: { 10: 0.25, 3: 0.75, 2: 0 } }))).toEqual([
      { k: 3, p: 0.75 },
      { k: 10, p: 0.25 },
    ]);
  });
});
