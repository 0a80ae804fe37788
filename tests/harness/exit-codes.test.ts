import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as engine from '../../engine/index.js';
import { BUG_CODES, EXIT, EXIT_BY_CODE, UsageError, exitCodeFor, exitCodeTable } from '../../harness/index.js';

describe('exit codes', () => {
  it('covers every error class the engine exports: each is in the typed list the table is keyed by', () => {
    const exported = Object.values(engine).filter((v) => typeof v === 'function' && (v as { prototype?: unknown }).prototype instanceof engine.RdhError) as Array<{ name: string }>;
    expect(exported.length).toBeGreaterThan(10);
    expect(exported.filter((c) => !(engine.ENGINE_ERRORS as readonly unknown[]).includes(c)).map((c) => c.name)).toEqual([]);
  });

  it('maps what ends a run to its own code, and only a bug to 1', () => {
    expect(exitCodeFor(new engine.ModelQuotaExhaustedError('m', 'insufficient_quota'))).toBe(5);
    expect(exitCodeFor(new engine.ModelConfigurationError('m', 'HTTP 401: bad key'))).toBe(6);
    expect(exitCodeFor(new engine.NoEligibleModelError('verifier', 'no family left'))).toBe(6);
    expect(exitCodeFor(new engine.DockerUnavailableError('unix:///var/run/docker.sock'))).toBe(3);
    expect(exitCodeFor(new engine.ModelUnavailableError('m', 'HTTP 503'))).toBe(3);
    expect(exitCodeFor(new UsageError('--depths: bad'))).toBe(2);
    expect(exitCodeFor(new TypeError('undefined is not a function'))).toBe(1);
    // Only codes that can escape a solve by a bug alone exit 1.
    expect(Object.entries(EXIT_BY_CODE).filter(([, code]) => code === EXIT.internal).map(([name]) => name)).toEqual([...BUG_CODES]);
    expect([...BUG_CODES]).toEqual(['sandbox_disposed', 'budget_exhausted', 'contract_missing', 'journal_event_invalid', 'sim_defect_model', 'sim_defect_table', 'sim_population']);
    expect([EXIT.ok, EXIT.usage, EXIT.environment, EXIT.gradingRefused, EXIT.quotaExhausted, EXIT.providerConfiguration, EXIT.replayDiverged, EXIT.interrupted]).toEqual([0, 2, 3, 4, 5, 6, 7, 130]);
  });

  it('is the table docs/getting-started.md prints', async () => {
    const readme = await readFile(path.resolve(import.meta.dirname, '../../docs/getting-started.md'), 'utf8');
    const section = /## Exit codes\n\n([\s\S]*?)\n\n/.exec(readme)?.[1];
    // To update it, paste exitCodeTable()'s output under "## Exit codes" in docs/getting-started.md.
    expect(section).toBe(exitCodeTable());
  });
});
