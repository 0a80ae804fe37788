import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';

/** A complete, valid manifest with every field written out; cases change one thing each. */
export const VALID_MANIFEST = {
  version: 1,
  name: 'fixture',
  spec: './spec',
  depth_caps: [1, 2, 3],
  repetitions: { default: 1, by_cap: { 3: 2 } },
  arms: ['gated', 'ungated'],
  executor: { provider: 'openai-compatible', model: 'executor-model', family: 'family-a', rung: 3 },
  reviewer: { provider: 'openai-compatible', model: 'reviewer-model', family: 'family-b', rung: 3 },
  independence: 'cross_family',
  merge_attempts: 2,
  unit: { max_turns: 60, token_ceiling: 1_000_000, cost_ceiling_usd: 5 },
  max_sessions: 1000,
  projected_branching: 3,
  concurrency: 2,
  simulated: { seed: 1, leaf_defect_rate: 0.2, seam_defect_rate: 0.15, judge_recall: 0.8, self_review_recall: 0.3, repair_rate: 0.6 },
};

type Json = Record<string, unknown>;

/** A deep copy of `base` with `patch` merged in; a patch value of `undefined` deletes the field. */
export function patched(base: Json, patch: Json): Json {
  const out: Json = structuredClone(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) delete out[key];
    else if (value && typeof value === 'object' && !Array.isArray(value) && out[key] && typeof out[key] === 'object' && !Array.isArray(out[key])) out[key] = patched(out[key] as Json, value as Json);
    else out[key] = value;
  }
  return out;
}

export const yamlOf = (value: unknown): string => stringify(value);

/** A scratch folder holding a `spec/` folder, so manifests written into it validate. */
export async function scratch(): Promise<{ dir: string; write(name: string, text: string): Promise<string>; listing(): Promise<string[]>; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-manifest-'));
  await mkdir(path.join(dir, 'spec'));
  await writeFile(path.join(dir, 'spec', 'SPEC.md'), '# fixture spec\n');
  await writeFile(path.join(dir, 'spec', 'requirements.yaml'), '- id: R01\n');
  return {
    dir,
    async write(name, text) {
      const file = path.join(dir, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
      return file;
    },
    listing: async () => (await readdir(dir, { recursive: true })).map(String).sort(),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
