import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { z } from 'zod';
import { OracleInvalidError } from '../../harness/grading/oracle-cases.js';
import { pinnedPackageDir } from '../../harness/task/brief-sources.js';

/**
 * The commonmark task's examples as the pinned commonmark-spec package holds them, and
 * coverage.yaml, which maps each graded example number to one requirement. What grading needs
 * and nothing more: no commonmark.js (a development dependency), which examples.ts uses to
 * check that the mapped numbers are exactly the in-scope examples outside the subset's
 * exclusions.
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));

const RequirementId = z.string().regex(/^R\d{2}$/);
export const Coverage = z.strictObject({
  version: z.literal(1),
  package: z.literal('commonmark-spec'),
  package_version: z.string().min(1),
  sections: z.array(z.string().min(1)).min(1),
  requirements: z.record(RequirementId, z.array(z.number().int().positive()).min(1)),
  /** Requirements whose cases compare whitespace exactly (normalize.py mode `exact`); the rest forgive what the spec's tooling forgives. */
  whitespace_exact: z.array(RequirementId),
  /** Documents holding U+0000 (SPEC section 4, References), each graded under one requirement. */
  nul_inputs: z.array(z.strictObject({ requirement: RequirementId, markdown: z.string().includes('\0'), html: z.string().min(1) })).min(1),
});
export type Coverage = z.infer<typeof Coverage>;

export async function loadCoverage(file = path.join(HERE, 'coverage.yaml')): Promise<Coverage> {
  const parsed = Coverage.safeParse(parse(await readFile(file, 'utf8')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OracleInvalidError(`${file}: ${issue.path.join('.')}: ${issue.message}`);
  }
  return parsed.data;
}

/** Requirement of each mapped number; a number mapped twice is refused. */
/** Refuses a coverage.yaml that maps examples to an id requirements.yaml does not define. */
export function assertKnownIds(coverage: Coverage, ids: Iterable<string>): void {
  const known = new Set(ids);
  const named = [...Object.keys(coverage.requirements), ...coverage.whitespace_exact, ...coverage.nul_inputs.map((c) => c.requirement)];
  const unknownIds = [...new Set(named)].filter((id) => !known.has(id));
  if (unknownIds.length) throw new OracleInvalidError(`coverage.yaml: ${unknownIds.join(', ')} not in requirements.yaml`);
}

/** How a requirement's cases compare whitespace: `exact` when coverage.yaml lists it in whitespace_exact, else `spec`. */
export function whitespaceOf(coverage: Coverage, requirement: string): 'spec' | 'exact' {
  return coverage.whitespace_exact.includes(requirement) ? 'exact' : 'spec';
}

export function requirementByNumber(coverage: Coverage): Map<number, string> {
  const of = new Map<number, string>();
  for (const [id, numbers] of Object.entries(coverage.requirements)) {
    for (const n of numbers) {
      const before = of.get(n);
      if (before) throw new OracleInvalidError(`coverage.yaml: example ${n} is mapped to both ${before} and ${id}; each example grades one requirement`);
      of.set(n, id);
    }
  }
  return of;
}

/** One example of the package, as its index.js parses spec.txt. */
export interface PackageExample {
  number: number;
  section: string;
  markdown: string;
  html: string;
}

const SpecExample = z.object({ number: z.number().int(), section: z.string(), markdown: z.string(), html: z.string() });

/**
 * spec.txt shows a tab as `→` so that it can be seen; the spec's own test runners
 * (spec_tests.py, commonmark.js's test.js) turn it back into a tab in input and output alike.
 */
const visibleTab = (text: string): string => text.replace(/→/g, '\t');

/** Every example of the sections coverage.yaml names, read from the pinned package (its version checked), tabs restored. */
export async function packageExamples(coverage: Coverage, root: string): Promise<PackageExample[]> {
  const dir = await pinnedPackageDir({ package: coverage.package, version: coverage.package_version }, { root });
  const tests = z.array(SpecExample).parse(createRequire(import.meta.url)(path.join(dir, 'index.js')).tests);
  const absent = coverage.sections.filter((s) => !tests.some((t) => t.section === s));
  if (absent.length) throw new OracleInvalidError(`coverage.yaml: sections: ${absent.join(', ')} hold no example of ${coverage.package} ${coverage.package_version}`);
  return tests.filter((t) => coverage.sections.includes(t.section)).map((t) => ({ ...t, markdown: visibleTab(t.markdown), html: visibleTab(t.html) }));
}
