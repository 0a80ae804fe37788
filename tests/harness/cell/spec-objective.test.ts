import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { licenceNotice, loadTaskDefinition, specDir } from '../../../harness/index.js';
import { specObjective } from '../../../harness/testing.js';

describe('the objective every node is handed', () => {
  it('is SPEC.md alone for a task with no brief sources', async () => {
    const objective = await specObjective(specDir('sqlcsv'));
    expect(objective.context).toBe(await readFile(path.join(specDir('sqlcsv'), 'SPEC.md'), 'utf8'));
  });

  it("carries SPEC.md, then each brief source's text between its licence notices, with no example of the package", async () => {
    const dir = specDir('commonmark');
    const [objective, task, spec] = await Promise.all([specObjective(dir), loadTaskDefinition(dir), readFile(path.join(dir, 'SPEC.md'), 'utf8')]);
    expect(objective.context.startsWith(spec.trimEnd())).toBe(true);
    const notice = licenceNotice(task.brief.sources[0]!);
    expect(objective.context.split(notice).length - 1).toBe(2);
    expect(objective.context).not.toContain('```````````````````````````````` example');
    expect(objective.requirements.length).toBeGreaterThanOrEqual(30);
  });
});
