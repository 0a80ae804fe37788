import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadRequirements } from '../../harness/grading/spec-requirements.js';
import { OracleInvalidError } from '../../harness/grading/oracle-cases.js';
import { EXIT, exitCodeFor } from '../../harness/exit-codes.js';
import { exclusionReason } from './exclusion.js';

/**
 * The commonmark task's graded cases, derived at run time from the pinned commonmark-spec
 * package (nothing of it is copied here): every example of the sections coverage.yaml names,
 * minus those exclusion.ts finds needing a construct outside the subset. Fails closed: an
 * included example coverage.yaml does not map, a number mapped twice, or a mapped number that
 * is excluded, unknown or outside those sections refuses the whole set.
 *
 *   npx tsx oracle/commonmark/examples.ts --excluded   # the exclusion list, with reasons
 *   npx tsx oracle/commonmark/examples.ts --summary    # per requirement: examples, distinct outputs
 */

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');

import { assertKnownIds, loadCoverage, packageExamples, requirementByNumber, whitespaceOf, type Coverage } from './spec-examples.js';

export { Coverage, loadCoverage } from './spec-examples.js';

export interface IncludedExample {
  number: number;
  section: string;
  requirement: string;
  markdown: string;
  html: string;
  /** How its case compares whitespace (coverage.yaml `whitespace_exact`). */
  whitespace: 'spec' | 'exact';
}
export interface ExcludedExample {
  number: number;
  section: string;
  reason: string;
}
export interface CommonmarkExamples {
  included: IncludedExample[];
  excluded: ExcludedExample[];
}


/** Options of {@link loadCommonmarkExamples}. */
export interface LoadOptions {
  /** The example map. Default: oracle/commonmark/coverage.yaml. */
  coverage?: Coverage;
  /** Where node_modules is. Default: the repository's root. */
  root?: string;
  /** The spec folder whose requirements.yaml names the ids. Default: spec/commonmark. */
  specDir?: string;
}

export async function loadCommonmarkExamples(options: LoadOptions = {}): Promise<CommonmarkExamples> {
  const coverage = options.coverage ?? (await loadCoverage());
  const tests = await packageExamples(coverage, options.root ?? ROOT);
  assertKnownIds(coverage, (await loadRequirements(options.specDir ?? path.join(ROOT, 'spec', 'commonmark'))).map((r) => r.id));
  const map = requirementByNumber(coverage);
  const result: CommonmarkExamples = { included: [], excluded: [] };
  const problems: string[] = [];
  const seen = new Set<number>();
  for (const t of tests) {
    seen.add(t.number);
    const reason = exclusionReason(t.markdown);
    const requirement = map.get(t.number);
    if (reason !== undefined) {
      result.excluded.push({ number: t.number, section: t.section, reason });
      if (requirement) problems.push(`example ${t.number} is mapped to ${requirement} but excluded (${reason})`);
    } else if (!requirement) problems.push(`example ${t.number} (${t.section}) is included but mapped to no requirement`);
    else result.included.push({ number: t.number, section: t.section, requirement, markdown: t.markdown, html: t.html, whitespace: whitespaceOf(coverage, requirement) });
  }
  for (const n of map.keys()) if (!seen.has(n)) problems.push(`example ${n} (${map.get(n)}) is not an example of an in-scope section`);
  if (problems.length) throw new OracleInvalidError(`coverage.yaml does not match ${coverage.package} ${coverage.package_version}:\n  ${problems.join('\n  ')}`);
  return result;
}

/** The exclusion list as printed: one line per example, then a count per reason. */
export function exclusionReport(examples: CommonmarkExamples): string {
  const lines = examples.excluded.map((e) => `${String(e.number).padStart(4)}  ${e.section}: ${e.reason}`);
  const counts = new Map<string, number>();
  for (const e of examples.excluded) counts.set(e.reason.replace(/ \[.*$/, ''), (counts.get(e.reason.replace(/ \[.*$/, '')) ?? 0) + 1);
  const summary = [...counts].sort((a, b) => b[1] - a[1]).map(([r, n]) => `${String(n).padStart(4)}  ${r}`);
  return [...lines, '', `${examples.excluded.length} excluded, ${examples.included.length} included; by reason:`, ...summary].join('\n');
}

/** Per requirement: how many examples grade it and how many distinct expected outputs they have. */
export function requirementSummary(examples: CommonmarkExamples): string {
  const by = new Map<string, IncludedExample[]>();
  for (const e of examples.included) by.set(e.requirement, [...(by.get(e.requirement) ?? []), e]);
  return [...by].sort(([a], [b]) => a.localeCompare(b)).map(([id, list]) => `${id}  ${list.length} examples, ${new Set(list.map((e) => e.html)).size} distinct outputs`).join('\n');
}

async function main(argv: string[]): Promise<number> {
  const flag = argv[0];
  if (argv.length !== 1 || (flag !== '--excluded' && flag !== '--summary')) {
    process.stderr.write('usage: npx tsx oracle/commonmark/examples.ts --excluded | --summary\n');
    return EXIT.usage;
  }
  const examples = await loadCommonmarkExamples();
  process.stdout.write(`${flag === '--excluded' ? exclusionReport(examples) : requirementSummary(examples)}\n`);
  return EXIT.ok;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = exitCodeFor(error);
    },
  );
}
