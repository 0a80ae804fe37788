import path from 'node:path';
import { loadOracleDefinition } from '../../grading/oracle-definition.js';
import { importRecipe } from '../../grading/recipe-import.js';
import type { Requirement } from '../../grading/spec-requirements.js';

/**
 * The coverage of a task graded by the examples of a pinned package: every example of the
 * graded sections is either mapped to one requirement or left out with a reason, and nothing
 * else. The task's case recipe (oracle.yaml `cases.recipe`) knows its package, so it does the
 * check: it exports `coverageCheck(requirements)`, returning the problems found (none: no
 * hole) and a one-line detail (how many examples were mapped and left out, and why).
 */
export interface ExampleMapCheck {
  problems: string[];
  detail: string;
}

/** The recipe's example-map check, or null when the oracle has no recipe exporting one (its coverage is a sentence map). */
export async function exampleMapOf(oracleDir: string, requirements: Requirement[]): Promise<ExampleMapCheck | null> {
  const definition = await loadOracleDefinition(oracleDir);
  if (!('recipe' in definition.cases)) return null;
  const mod = (await importRecipe(path.join(oracleDir, definition.cases.recipe))) as { coverageCheck?: unknown };
  if (typeof mod.coverageCheck !== 'function') return null;
  const result = (await (mod.coverageCheck as (r: Requirement[]) => Promise<unknown>)(requirements)) as Partial<ExampleMapCheck> | null;
  const problems = Array.isArray(result?.problems) ? result.problems.map(String) : ['the recipe\'s coverageCheck returned no list of problems'];
  return { problems, detail: typeof result?.detail === 'string' ? result.detail : 'no detail' };
}
