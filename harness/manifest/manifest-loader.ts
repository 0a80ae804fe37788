import path from 'node:path';
import { Manifest } from './manifest.js';
import { specFolderProblem } from './spec-folder.js';
import { digestOf } from '../internal/canonical-json.js';
import { problemLine, readDataFile, shownPath } from '../internal/data-file.js';
import { count, plain } from '../internal/figures.js';
import { ProblemListError } from '../internal/problem-list-error.js';
import { firstUncountable, planInputFor, projectPlan, type UncountableFigure } from '../plan/plan-arithmetic.js';

/** The manifest cannot be used as written. One line per problem, each with its fix; nothing was written. */
export class ManifestInvalidError extends ProblemListError {
  readonly code = 'manifest_invalid';
}

/** A manifest that passed every check, with what the rest of the harness needs beside it. */
export interface LoadedManifest {
  /**
   * What the sweep obeys: validated, defaults applied, caps ascending, arms in canonical
   * order, paths as written. Flags such as `--max-sessions` replace this object (see
   * `folded`); the file is never touched.
   */
  readonly manifest: Manifest;
  /** Absolute path of the manifest file. */
  readonly file: string;
  /** The path as the user wrote it; messages and reports name the file this way. */
  readonly shownAs: string;
  /** `manifest.spec` resolved against the manifest file's own folder. */
  readonly specDir: string;
  /**
   * sha256 of the manifest as the file states it (canonical JSON, defaults applied, paths as
   * written). Stable under key order, formatting and the checkout's location; changed by
   * any semantic edit; never changed by a fold, so a resume with `--max-sessions` matches.
   */
  readonly digest: string;
  /** Lines every artifact of this sweep must show on its face (the same_family caveat). */
  readonly caveats: readonly string[];
  /** Values folded in from flags, with the manifest's own value beside each. */
  readonly folded: { readonly max_sessions?: { readonly manifest: number; readonly flag: number } };
}

/** Canonical digest of a validated manifest. */
export function manifestDigest(manifest: Manifest): string {
  return digestOf(manifest);
}

/** The caveat a same_family sweep carries everywhere; undefined for cross_family. */
export function sameFamilyCaveat(manifest: Manifest): string | undefined {
  if (manifest.independence !== 'same_family') return undefined;
  const family = manifest.executor.family ?? manifest.reviewer.family;
  const who = family ? `both from family "${family}"` : 'declared to share a family';
  return `SAME FAMILY: executor and reviewer are ${who}, so the gated arm's judge is not independent of the work it judges; a judge favours its own family's output, which biases the difference between the arms toward zero.`;
}

const STARTER = 'copy manifests/smoke.yaml to start';

/** A figure too large to print exactly, as a person reads it: never "Infinity". */
function magnitude(n: number): string {
  return Number.isFinite(n) ? `about ${n.toExponential(1)}` : 'more than any number';
}

/** The field to lower when a projected figure cannot be counted, and what to say about it. */
function uncountableProblem(manifest: Manifest, bad: UncountableFigure): { path: string[]; text: string } {
  const limit = `above ${count(Number.MAX_SAFE_INTEGER)}, the largest whole number counted exactly`;
  const deepest = manifest.depth_caps.at(-1);
  if (bad.figure === 'sessions') {
    return {
      path: ['projected_branching'],
      text: `at b = ${plain(manifest.projected_branching)} and cap ${deepest} the plan projects ${magnitude(bad.value)} sessions, ${limit}; lower projected_branching or the deepest cap`,
    };
  }
  const [field, what] = bad.figure === 'tokenBound' ? ['token_ceiling', 'token bound'] : ['cost_ceiling_usd', 'cost bound'];
  return { path: ['unit', field], text: `the plan's ${what} (sessions x unit.${field}) comes to ${magnitude(bad.value)}, ${limit}; lower unit.${field}` };
}

/**
 * Reads, validates and resolves a manifest. Throws ManifestInvalidError listing every problem
 * it can find at once (a person fixes them in one pass), each as `file:line: field: what; fix`.
 * Paths resolve against the manifest's folder, so it means the same from any directory.
 */
export async function loadManifest(file: string): Promise<LoadedManifest> {
  const absolute = path.resolve(file);
  const shownAs = shownPath(file);
  const result = await readDataFile(absolute, { shownAs, schema: Manifest, what: 'manifest', starter: STARTER });
  if (!result.ok) throw new ManifestInvalidError(result.lines);
  const manifest = result.value;
  const problems: string[] = [];
  const specDir = path.resolve(path.dirname(absolute), manifest.spec);
  const specProblem = await specFolderProblem(specDir, path.dirname(absolute));
  if (specProblem) problems.push(problemLine(shownAs, result.source, ['spec'], `${shownPath(JSON.stringify(manifest.spec))} ${specProblem}`));
  // Every figure the plan prints must be a finite whole number it can print exactly.
  const bad = firstUncountable(projectPlan(planInputFor(manifest)));
  if (bad) {
    const { path: where, text } = uncountableProblem(manifest, bad);
    problems.push(problemLine(shownAs, result.source, where, text));
  }
  if (problems.length > 0) throw new ManifestInvalidError(problems);
  const caveat = sameFamilyCaveat(manifest);
  return { manifest, file: absolute, shownAs, specDir, digest: manifestDigest(manifest), caveats: caveat ? [caveat] : [], folded: {} };
}
