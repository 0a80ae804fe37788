import { readFile, rm, stat, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkExample, ExampleStaleError, EXAMPLE_RUN } from '../../site/scripts/example-check.js';
import { writeRunFixture } from '../support/run-fixture.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');
let tmp: string;
let run: string;
let pristine: Map<string, string>;

const FILES = ['report/report.json', 'journal.jsonl', 'cells/cap1-rep1-gated/grade.json'];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-example-check-'));
  run = path.join(tmp, 'runs', EXAMPLE_RUN);
  await writeRunFixture(run);
  pristine = new Map(await Promise.all(FILES.map(async (f) => [f, await readFile(path.join(run, f), 'utf8')] as const)));
}, 120_000);

afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** Rewrites one file of the run with `edit`, runs the check, and puts the file back. */
async function staleBy(file: string, edit: (text: string) => string): Promise<string> {
  await writeFile(path.join(run, file), edit(pristine.get(file)!));
  try {
    await checkExample(tmp);
    return 'no error';
  } catch (error) {
    expect(error).toBeInstanceOf(ExampleStaleError);
    return (error as Error).message;
  } finally {
    await writeFile(path.join(run, file), pristine.get(file)!);
  }
}

describe('the committed example still loads with the current schemas', () => {
  it('passes a run folder written in the current formats', async () => {
    expect(await checkExample(tmp)).toEqual({ cells: 4, sessions: expect.any(Number), journalEvents: expect.any(Number) });
  });

  it('fails with the file, the field and "regenerate with npm run example" when a format moved on', async () => {
    expect(await staleBy('report/report.json', (t) => JSON.stringify({ ...JSON.parse(t), version: 999 }))).toMatch(
      /^the committed example run no longer loads with the current schemas: runs\/example-sim\/report\/report\.json: does not match its schema \(.+\); regenerate with npm run example$/,
    );
    expect(await staleBy('journal.jsonl', (t) => t.replace(/"type":"cell_finished","version":\d+/, '"type":"cell_finished","version":1'))).toMatch(
      /^the committed example run no longer loads with the current schemas: runs\/example-sim\/journal\.jsonl line \d+: does not match its schema \(.+\); regenerate with npm run example$/,
    );
    expect(await staleBy('cells/cap1-rep1-gated/grade.json', (t) => JSON.stringify({ ...JSON.parse(t), satisfied: 'many' }))).toMatch(
      /cells\/cap1-rep1-gated\/grade\.json: does not match its schema \(satisfied: .+\); regenerate with npm run example$/,
    );
    await rm(path.join(run, 'journal.jsonl'));
    try {
      await expect(checkExample(tmp)).rejects.toThrow(/runs\/example-sim: journal\.jsonl is missing; regenerate with npm run example$/);
    } finally {
      await writeFile(path.join(run, 'journal.jsonl'), pristine.get('journal.jsonl')!);
    }
  });

  it(`runs/${EXAMPLE_RUN} as committed`, async () => {
    const read = await checkExample(REPO);
    expect(read.cells).toBeGreaterThan(0);
    expect(read.sessions).toBeGreaterThan(0);
  });
});
