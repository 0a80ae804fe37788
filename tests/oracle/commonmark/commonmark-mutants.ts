/** Test support: what each mutant of the commonmark reference breaks, measured over the included examples. */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { applyMutant, loadMutants, type Mutant } from '../../../harness/index.js';
import type { IncludedExample } from '../../../oracle/commonmark/examples.js';
import { ORACLE, REFERENCE, runReference } from './commonmark-examples.js';

export interface Measured {
  mutant: Mutant;
  /** The requirements with at least one failing example, sorted. */
  broken: string[];
  /** Failing examples by number. */
  failing: number[];
}

export const commonmarkMutants = () => loadMutants(ORACLE);

/** Applies `mutant` to a copy of the reference and runs every example through it (see runReference). */
export async function measure(mutant: Mutant, examples: IncludedExample[], lenient = false): Promise<Measured> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'cm-mutant-'));
  try {
    await applyMutant(REFERENCE, mutant, dir);
    const results = runReference(examples, dir, lenient);
    const failing = results.filter((r) => !r.passed).map((r) => r.number);
    const requirementOf = new Map(examples.map((e) => [e.number, e.requirement]));
    const broken = [...new Set(failing.map((n) => requirementOf.get(n)!))].sort();
    return { mutant, broken, failing };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
