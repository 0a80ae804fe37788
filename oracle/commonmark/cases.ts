import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Requirement } from '../../harness/grading/spec-requirements.js';
import { OracleInvalidError } from '../../harness/grading/oracle-cases.js';
import { assertKnownIds, loadCoverage, packageExamples, requirementByNumber, whitespaceOf } from './spec-examples.js';
import { inputVariants } from './input-variants.js';

/**
 * The commonmark oracle's case recipe (oracle.yaml `cases.recipe`): one case per example that
 * coverage.yaml maps to a requirement, read at run time from the pinned commonmark-spec package
 * (nothing of it is copied here), then the line-ending and NUL variants of input-variants.ts. The
 * program gets the Markdown on stdin and must exit 0 with HTML equal, once both are normalised
 * (normalize.py, in the mode coverage.yaml's `whitespace_exact` gives the requirement), to the expected. Which
 * in-scope examples are left out is checked against commonmark.js elsewhere (examples.ts, run
 * by the tests and `harness task check`): grading needs only the pinned package.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export async function deriveCases(requirements: Requirement[]): Promise<unknown[]> {
  const coverage = await loadCoverage();
  assertKnownIds(coverage, requirements.map((r) => r.id));
  const map = requirementByNumber(coverage);
  const examples = new Map((await packageExamples(coverage, ROOT)).map((e) => [e.number, e]));
  const missing = [...map.keys()].filter((n) => !examples.has(n));
  if (missing.length) throw new OracleInvalidError(`coverage.yaml: examples ${missing.join(', ')} are not examples of an in-scope section`);
  const graded = [...map].sort(([a], [b]) => a - b).map(([n, req]) => ({ ...examples.get(n)!, requirement: req }));
  const expect = (req: string, html: string) => ({ exit: 0, html, whitespace: whitespaceOf(coverage, req) });
  return [
    ...graded.map((e) => ({ id: `${e.requirement}-ex${e.number}`, req: e.requirement, args: [], stdin: e.markdown, expect: expect(e.requirement, e.html) })),
    ...inputVariants(graded, coverage).map((v) => ({ id: `${v.requirement}-${v.key}`, req: v.requirement, args: [], stdin: v.markdown, expect: expect(v.requirement, v.html) })),
  ];
}

/**
 * The example map's check for `harness task check`: every example of the graded sections is
 * mapped to one requirement or left out because commonmark.js (a development dependency, loaded
 * only here) finds a construct outside the subset in it. The exclusion list, with the reason for
 * each, prints with `npx tsx oracle/commonmark/examples.ts --excluded`.
 */
export async function coverageCheck(requirements: Requirement[]): Promise<{ problems: string[]; detail: string }> {
  const { loadCommonmarkExamples } = await import('./examples.js');
  const specDir = path.join(ROOT, 'spec', 'commonmark');
  try {
    const known = new Set(requirements.map((r) => r.id));
    const examples = await loadCommonmarkExamples({ specDir });
    const reasons = new Map<string, number>();
    for (const e of examples.excluded) {
      const kind = e.reason.replace(/ \[.*$/, '');
      reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
    }
    const unmapped = requirements.filter((r) => !examples.included.some((e) => e.requirement === r.id)).map((r) => `${r.id} has no example`);
    const foreign = examples.included.filter((e) => !known.has(e.requirement)).map((e) => `example ${e.number} grades ${e.requirement}, not a requirement`);
    const left = [...reasons].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${n} ${r}`).join(', ');
    return { problems: [...unmapped, ...foreign], detail: `${examples.included.length} examples mapped to ${requirements.length} requirements; ${examples.excluded.length} left out (${left})` };
  } catch (error) {
    return { problems: (error as Error).message.split('\n').map((l) => l.trim()).filter(Boolean), detail: '' };
  }
}
