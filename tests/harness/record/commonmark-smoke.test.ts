import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, Report, readSweepJournal, runCli, runRecord, runReplay } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { expectedNotices, licenceProblems } from '../../site/checks/licence.js';
import { witnessCaseIds } from '../../support/witness-oracle.js';

/**
 * The second task through the whole machinery: manifests/commonmark-smoke.yaml recorded with the
 * SIMULATED population in Docker (cap 1, both arms), its report built, and its site pages built
 * by make_site.sh. Every tree is graded against the commonmark oracle's 33 requirements (the
 * CommonMark 0.31.2 examples) with its witness cases, the few that decide a SIMULATED tree
 * (witness-oracle.ts). Every survival figure carries the planted truth beside it.
 */
describe('a SIMULATED commonmark smoke sweep at cap 1', () => {
  it('records, reports every figure beside its planted truth, and builds its site pages', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'rdh-commonmark-smoke-'));
    const out = path.join(dir, 'runs', 'commonmark-smoke');
    const io = bufferIo();
    // Graded with the oracle's witness cases (witness-oracle.ts), here and in the replay below.
    const witnesses = await witnessCaseIds('commonmark');
    const recorded = await runRecord(path.join(REPO_ROOT, 'manifests', 'commonmark-smoke.yaml'), { out }, io, { grade: (tree, _cell, base) => base(tree, { caseIds: witnesses }) });
    expect(recorded.exit, io.stderr()).toBe(0);
    const report = JSON.parse(await readFile(path.join(out, 'report', 'report.json'), 'utf8')) as {
      design: { spec: string };
      counts: { cells: { design: number; measured: number } };
      cells: Array<{ result: { specTotal: number; specPassing: number } }>;
      survival: { byCap: Array<Record<'gated' | 'ungated' | 'difference', { estimate: number; truth: number }>> };
    };
    expect(report.design.spec).toBe('../spec/commonmark');
    expect(report.counts.cells).toMatchObject({ design: 2, measured: 2 });
    for (const cell of report.cells) expect(cell.result.specTotal).toBe(33);
    for (const row of report.survival.byCap) {
      for (const arm of ['gated', 'ungated', 'difference'] as const) {
        expect(Number.isFinite(row[arm].estimate)).toBe(true);
        expect(Number.isFinite(row[arm].truth)).toBe(true);
      }
    }
    const md = await readFile(path.join(out, 'report', 'report.md'), 'utf8');
    expect(md).toContain('planted gated / ungated / difference');
    // Every leaf's own tree graded against the 33 requirements (grade_leaves): each SIMULATED leaf writes the whole converter, as planted.
    const beyond = Report.parse(JSON.parse(await readFile(path.join(out, 'report', 'report.json'), 'utf8'))).beyondClaims!;
    expect(beyond.specTotal).toBe(33);
    expect(beyond.rows.map((r) => [r.cap, r.graded === r.leaves && r.leaves > 0, r.share, r.truth])).toEqual([[1, true, 1, 1]]);
    expect(md).toContain('## Work beyond the claims');
    // The journal keeps the facts: each leaf below the root carries its grade, the same in both arms (shared pairing).
    const journal = (await readSweepJournal(path.join(out, 'journal.jsonl'))).events;
    const leaves = journal.flatMap((e) => (e.type === 'cell_finished' && e.outcome.status === 'measured' ? e.outcome.result.leaves.filter((l) => l.level > 0).map((l) => `${e.cellId} ${l.path} ${l.grade?.status}`) : []));
    expect(leaves.length).toBe(2 * beyond.rows[0]!.leaves);
    expect(leaves.every((l) => l.endsWith(' graded'))).toBe(true);

    // The same machinery reads it back: replay re-executes the gated cell (`--cell`: the pair's shared
    // build and that arm's merges) from its transcripts and reproduces it, and plan learns from the run.
    // Both arms of a Docker recording replay in replay.test.ts; here the second task's oracle and
    // corpus are what is new, and one cell holds both.
    const replayIo = bufferIo();
    const replay = await runReplay(out, { cell: 'cap1-rep1-gated' }, replayIo, { grade: (tree, base) => base(tree, { caseIds: witnesses }) });
    expect(replay.exit, replayIo.stdout() + replayIo.stderr()).toBe(0);
    expect(replayIo.stdout().match(/reproduced/g)?.length, replayIo.stdout()).toBe(1);
    expect(replayIo.stdout()).toMatch(/cap1-rep1-gated\b.*reproduced/);
    expect(replayIo.stdout()).not.toContain('cap1-rep1-ungated');
    const planIo = bufferIo();
    expect(await runCli(['plan', path.join(REPO_ROOT, 'manifests', 'commonmark-smoke.yaml'), '--from', out], planIo), planIo.stderr()).toBe(0);
    expect(planIo.stdout()).toMatch(/learned from 2 measured cells|2 measured cells/);
    const site = path.join(dir, 'site');
    await promisify(execFile)(path.join(REPO_ROOT, 'make_site.sh'), ['--out', site, '--data', path.join(dir, 'site-data'), out], { cwd: dir, maxBuffer: 64 << 20 });
    const index = await readFile(path.join(site, 'index.html'), 'utf8');
    // The index groups runs by manifest; the group's heading names the task its runs measure.
    expect(index).toMatch(/<h2 id="manifest-commonmark-smoke"[^>]*>commonmark-smoke <span[^>]*>\([^)]*; task commonmark\)<\/span><\/h2>/);
    const sweep = await readFile(path.join(site, 'runs', 'commonmark-smoke', 'index.html'), 'utf8');
    expect(sweep).toContain('SIMULATED');
    expect(sweep).toContain('../spec/commonmark');
    // The brief carried the spec's prose (CC BY-SA 4.0): every transcript page and the raw archive carry its notice.
    const notices = await expectedNotices(path.join(REPO_ROOT, 'spec', 'commonmark'));
    expect(notices).toHaveLength(1);
    const licence = await licenceProblems(site, 'commonmark-smoke', notices);
    expect(licence.problems).toEqual([]);
    expect(licence.sessionPages).toBeGreaterThan(0);
  }, 900_000);
});
