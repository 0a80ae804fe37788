import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOracle, loadOracleDefinition, type OracleCase } from '../../../harness/index.js';

const requirements = [
  { id: 'R01', area: 'a', title: 'one', criterion: 'the first' },
  { id: 'R02', area: 'a', title: 'two', criterion: 'the second' },
];

async function oracleWith(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'rdh-oracle-def-'));
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  }
  return dir;
}

const cases: OracleCase[] = [
  { id: 'R01-a', req: 'R01', args: [], stdin: 'x', expect: { exit: 0, html: '<p>x</p>\n' } },
  { id: 'R02-a', req: 'R02', args: [], stdin: 'y', expect: { exit: 0, stdout: 'y\n' } },
];

describe('oracle.yaml: a task brings its judge and its cases', () => {
  it('loads cases from a folder of YAML lists, with the judge and its modules staged first-judge', async () => {
    const dir = await oracleWith({
      'oracle.yaml': 'version: 1\njudge: judge.py\njudge_modules: [normalize.py]\ncases: { dir: cases }\n',
      'cases/all.yaml': JSON.stringify(cases),
    });
    const oracle = await loadOracle(dir, requirements);
    expect([oracle.judgeFiles, oracle.cases.map((c) => c.id), oracle.requirementMap]).toEqual([['judge.py', 'normalize.py'], ['R01-a', 'R02-a'], { R01: ['R01-a'], R02: ['R02-a'] }]);
  });

  it('derives cases at run time from a recipe, validating each as if it were written down', async () => {
    const recipe = `export async function deriveCases(requirements) { return ${JSON.stringify(cases)}.filter((c) => requirements.some((r) => r.id === c.req)); }\n`;
    const dir = await oracleWith({ 'oracle.yaml': 'version: 1\njudge: judge.py\ncases: { recipe: cases.ts }\n', 'cases.ts': recipe });
    expect((await loadOracle(dir, requirements)).cases.map((c) => c.id)).toEqual(['R01-a', 'R02-a']);
    const bad = await oracleWith({ 'oracle.yaml': 'version: 1\njudge: judge.py\ncases: { recipe: cases.ts }\n', 'cases.ts': 'export const deriveCases = () => [{ id: "R01-a", req: "R01", args: [], expect: { exit: 300 } }];\n' });
    await expect(loadOracle(bad, requirements)).rejects.toThrowErrorMatchingInlineSnapshot(`[OracleInvalidError: cases.ts[0]: expect.exit: Too big: expected number to be <=255]`);
    const none = await oracleWith({ 'oracle.yaml': 'version: 1\njudge: judge.py\ncases: { recipe: cases.ts }\n', 'cases.ts': 'export const other = 1;\n' });
    await expect(loadOracle(none, requirements)).rejects.toThrowErrorMatchingInlineSnapshot(`[OracleInvalidError: cases.ts: a case recipe exports deriveCases(requirements)]`);
  });

  it('refuses a judge outside the folder, the runner\'s own names, a repeated module, and a missing file', async () => {
    const refusal = async (text: string) => loadOracleDefinition(await oracleWith({ 'oracle.yaml': text })).then(() => 'loaded', (e: Error) => e.message.split('/').pop());
    expect(await refusal('version: 1\njudge: ../judge.py\ncases: { dir: cases }\n')).toMatch(/judge.*is not a module file of the oracle folder/);
    expect(await refusal('version: 1\njudge: runner.py\ncases: { dir: cases }\n')).toMatch(/judge.*shared runner's own file name/);
    expect(await refusal('version: 1\njudge: judge.py\njudge_modules: [judge.py]\ncases: { dir: cases }\n')).toMatch(/repeats a file/);
    await expect(loadOracleDefinition(await oracleWith({}))).rejects.toThrow(/oracle.yaml/);
  });
});
