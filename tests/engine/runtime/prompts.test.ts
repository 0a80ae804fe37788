import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Role, promptFor } from '../../../engine/index.js';
import { loadSpecOracle } from '../../../harness/index.js';

describe('prompts', () => {
  it('exist for every role, are loaded from files, and each says what the role must return', async () => {
    for (const role of Role.options) {
      const text = promptFor(role);
      expect(text.startsWith(`# Role: ${role.replace('_', ' ')}`)).toBe(true);
      expect(text).toMatch(/Return only|call `finish`/);
    }
    const files = await readdir(path.resolve(import.meta.dirname, '../../../engine/prompts'));
    expect(files.sort()).toEqual(Role.options.map((r) => `${r}.md`).sort());
  });

  it('never name the oracle, its cases or a hidden test', async () => {
    const { oracle } = await loadSpecOracle('sqlcsv');
    for (const role of Role.options) {
      const text = promptFor(role);
      expect(text.toLowerCase()).not.toContain('oracle');
      for (const c of oracle.cases) expect(text).not.toContain(c.id);
    }
    // No engine source (briefs included) reaches into the oracle's folder.
    const engineDir = path.resolve(import.meta.dirname, '../../../engine');
    const sources = (await readdir(engineDir, { recursive: true })).filter((f) => f.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(20);
    for (const f of sources) expect(await readFile(path.join(engineDir, f), 'utf8')).not.toMatch(/oracle\//);
  });
});
