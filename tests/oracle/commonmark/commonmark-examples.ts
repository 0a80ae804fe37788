/**
 * Test support for the commonmark oracle: the included examples (the recipe's, oracle/commonmark/examples.ts)
 * and one way to run Python over all of them in a single interpreter. Not a test.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCommonmarkExamples, type IncludedExample } from '../../../oracle/commonmark/examples.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const ORACLE = path.join(ROOT, 'oracle', 'commonmark');
export const REFERENCE = path.join(ORACLE, 'reference');

/** The included examples as a program sees them (the recipe restores the tabs spec.txt shows as →). */
export async function includedExamples(): Promise<IncludedExample[]> {
  return (await loadCommonmarkExamples()).included;
}

/** Runs `python3 -I -c source` with `input` as JSON on stdin and parses its stdout as JSON. */
export function pythonJson<T>(source: string, input: unknown, env: Record<string, string> = {}): T {
  const out = execFileSync('python3', ['-I', '-c', source], {
    input: JSON.stringify(input),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    maxBuffer: 64 << 20,
  });
  return JSON.parse(out.toString('utf8')) as T;
}

/**
 * Python converting each example of stdin with the mdlite package under $MDLITE_ROOT and saying whether
 * the output equals the expected HTML byte for byte and once both are normalised (in the example's
 * whitespace mode, as the judge compares its case).
 */
export const CONVERT_AND_COMPARE = `
import json, os, re, sys
sys.path[:0] = [os.environ["MDLITE_ROOT"], os.environ["NORMALIZE_DIR"]]
sys.setrecursionlimit(100000)
from mdlite import convert
from normalize import normalize
if os.environ.get("LENIENT"):
    # The deliberately lenient normaliser of the proof: tags dropped, all whitespace collapsed.
    def normalize(html):
        return re.sub(r"\\s+", " ", re.sub(r"<[^>]*>", "", html)).strip()
results = []
for e in json.load(sys.stdin):
    try:
        got = convert(e["markdown"])
    except Exception as err:
        got = "<crash>" + type(err).__name__
    ws = e.get("whitespace", "spec")
    passed = normalize(got) == normalize(e["html"]) if os.environ.get("LENIENT") else normalize(got, ws) == normalize(e["html"], ws)
    results.append({"number": e["number"], "exact": got == e["html"], "passed": passed})
print(json.dumps(results))
`;

export interface ExampleResult {
  number: number;
  exact: boolean;
  passed: boolean;
}

/**
 * Each example's result under the mdlite package rooted at `mdliteRoot` (the folder holding mdlite/),
 * compared under normalize.py, or under the proof's lenient normaliser when `lenient` (default false).
 */
export function runReference(examples: IncludedExample[], mdliteRoot = REFERENCE, lenient = false): ExampleResult[] {
  const env: Record<string, string> = { MDLITE_ROOT: mdliteRoot, NORMALIZE_DIR: ORACLE };
  if (lenient) env.LENIENT = '1';
  return pythonJson<ExampleResult[]>(CONVERT_AND_COMPARE, examples, env);
}
