import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { GOLDEN_MANIFEST_YAML, goldenEvents } from '../report/golden-fixture.js';
import { writeRun } from '../report/run-fixture.js';

/** `harness report runs/NAME` through the CLI: the summary it prints, and the refusals, each with exit 2. */

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

const scratch = () => mkdtemp(path.join(tmpdir(), 'rdh-report-cli-'));

describe('harness report', () => {
  it('builds the report and prints the per-level table and the paths', async () => {
    const dir = await writeRun(path.join(await scratch(), 'golden-20260102T030000Z'), GOLDEN_MANIFEST_YAML, goldenEvents());
    const { code, stdout, stderr } = await run('report', dir);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.replaceAll(dir, '<run>')).toMatchInlineSnapshot(`
      "harness report: golden (run golden-20260102T030000Z)
      CEILING REACHED: 1 cell left unmeasured by max_sessions · 8 of 10 cells measured · INDEPENDENCE NOT
        SHOWN at 1 gated merge · 1 NEEDS_HUMAN escalation parked · UNPRICED sessions: dollars unknown

      Survival by achieved level (root = 0), pooled over caps, 95% intervals:

        level  pairs  gated                  ungated                gated − ungated
            1      2  0.950 [0.023, 1.000]*  0.838 [0.015, 0.999]*  +0.112 [-0.354, +0.534]*
            2      2  0.952 [0.059, 1.000]*  0.871 [0.419, 0.984]*  +0.081 [-0.412, +0.537]*
        * uncalibrated: fewer than 5 pairs, or no spread between them

      cells: 8 measured of 10, 1 unavailable, 1 unmeasured; 118 sessions

      wrote <run>/report/
        report.json
        report.md
        charts/survival-by-level.vl.json
        charts/survival-by-level.svg
        charts/paired-difference.vl.json
        charts/paired-difference.svg
        charts/cap-curve.vl.json
        charts/cap-curve.svg
        charts/achieved-depth.vl.json
        charts/achieved-depth.svg
        charts/cells.vl.json
        charts/cells.svg
        charts/cost.vl.json
        charts/cost.svg
      "
    `);
    expect(JSON.parse(await readFile(path.join(dir, 'report', 'report.json'), 'utf8')).version).toBe(1);
  });

  it('refuses what is not a recorded run, in one line naming the fix (exit 2)', async () => {
    const root = await scratch();
    const refusal = async (dir: string) => {
      const { code, stdout, stderr } = await run('report', dir);
      return { code, stdout, stderr: stderr.replaceAll(root, '<tmp>') };
    };
    expect(await refusal(path.join(root, 'missing'))).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "harness: <tmp>/missing does not exist; point at a run folder written by harness record (runs/NAME)
      ",
        "stdout": "",
      }
    `);
    await mkdir(path.join(root, 'empty-journal'));
    await writeFile(path.join(root, 'empty-journal', 'journal.jsonl'), '');
    expect(await refusal(path.join(root, 'empty-journal'))).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "harness: <tmp>/empty-journal/journal.jsonl holds no durable event yet, so nothing was recorded; run harness record first
      ",
        "stdout": "",
      }
    `);
    const tampered = await writeRun(path.join(root, 'tampered'), GOLDEN_MANIFEST_YAML, goldenEvents());
    await writeFile(path.join(tampered, 'manifest.yaml'), GOLDEN_MANIFEST_YAML.replace('max_sessions: 60', 'max_sessions: 600'));
    expect(await refusal(tampered)).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "harness: <tmp>/tampered/manifest.yaml is not the manifest the journal pins (sha256 0049dd1468ba, pinned 9cabc6f5ff17 from manifests/golden.yaml); restore the recorded file
      ",
        "stdout": "",
      }
    `);
    const nothing = goldenEvents().filter((e) => !(e.type === 'cell_finished' && e.outcome.status === 'measured'));
    const unmeasured = await writeRun(path.join(root, 'nothing'), GOLDEN_MANIFEST_YAML, nothing.map((e, i) => ({ ...e, seq: i + 1 })));
    expect(await refusal(unmeasured)).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "harness: nothing: no cell was measured (1 unavailable, 1 unmeasured, 8 interrupted, 0 not recorded); a sweep where nothing was measured is not published as a curve of zeros
      ",
        "stdout": "",
      }
    `);
  });
});
