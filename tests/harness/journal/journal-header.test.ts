import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, oracleDir, specDir } from '../../../harness/index.js';
import { assertPinsMatch, collectPins, comparePins, digestFolder, JournalMismatchError, type JournalPins, pinPair, readCodeIdentity, readHarnessVersion } from '../../../harness/index.js';
import { samplePins } from './sweep-fixtures.js';

const temp = (prefix: string) => mkdtemp(path.join(tmpdir(), `rdh-${prefix}-`));
const hex = (c: string) => c.repeat(64);

const pins = samplePins;

function refusal(current: Partial<JournalPins>, allowCodeChange = false): string {
  const result = comparePins(pins(), pins(current), { allowCodeChange });
  if (result.ok) throw new Error('expected a refusal');
  return `${result.field}: ${result.message}`;
}

describe('comparePins: a resume against anything different is refused, naming the field and the fix', () => {
  it('accepts identical pins with no caveat', () => {
    expect(comparePins(pins(), pins())).toEqual({ ok: true, caveats: [] });
  });

  it('refuses each data pin with its own message', () => {
    expect(refusal({ manifest: { path: 'manifests/smoke.yaml', sha256: hex('d'), bytes: 813 } })).toMatchInlineSnapshot(
      `"manifest: the manifest changed since this journal began (digest aaaaaaaa… → dddddddd…): record into a new --out, or restore the manifest"`,
    );
    expect(refusal({ spec: { path: 'spec/sqlcsv', content: { state: 'present', sha256: hex('e'), files: 2 } } })).toMatchInlineSnapshot(
      `"spec: the spec folder changed since this journal began (digest bbbbbbbb… → digest eeeeeeee…): record into a new --out, or restore spec/sqlcsv as it was"`,
    );
    expect(refusal({ oracle: { path: 'oracle/sqlcsv', content: { state: 'absent' } } })).toMatchInlineSnapshot(
      `"oracle: the oracle folder changed since this journal began (digest cccccccc… → absent): record into a new --out, or restore oracle/sqlcsv as it was"`,
    );
    expect(refusal({ simCorpus: { path: 'harness/sim/corpus', content: { state: 'present', sha256: hex('f'), files: 9 } } })).toMatchInlineSnapshot(
      `"simCorpus: the sim corpus changed since this journal began (absent → digest ffffffff…): record into a new --out, or restore harness/sim/corpus as it was"`,
    );
    expect(refusal({ reviewer: { ...pins().reviewer, realModel: 'vendor/other-model' } })).toMatchInlineSnapshot(
      `"reviewer: the reviewer pair changed since this journal began (realModel "vendor/reviewer-model" → "vendor/other-model"): record into a new --out, or restore the provider configuration"`,
    );
    expect(refusal({ executor: { ...pins().executor, realFamily: null } })).toMatchInlineSnapshot(
      `"executor: the executor pair changed since this journal began (realFamily "vendor-a" → null): record into a new --out, or restore the provider configuration"`,
    );
    expect(refusal({ simulated: { seed: 1, judge_recall: 0.7 } })).toMatchInlineSnapshot(
      `"simulated: the planted simulated parameters changed since this journal began (judge_recall 0.8 → 0.7): record into a new --out, or restore them"`,
    );
  });

  it('refuses the same file count with other content (the digest decides, not the count)', () => {
    expect(refusal({ spec: { path: 'elsewhere/sqlcsv', content: { state: 'present', sha256: hex('b'), files: 3 } } })).toMatch(/^spec: /);
    expect(comparePins(pins(), pins({ spec: { path: 'elsewhere/sqlcsv', content: pins().spec.content } })).ok).toBe(true);
  });

  it('refuses changed code unless allowed, and then returns a caveat instead', () => {
    const moved = { code: { state: 'git' as const, commit: 'fedcba0987654321fedcba0987654321fedcba09', dirty: false, changes: null } };
    expect(refusal(moved)).toMatchInlineSnapshot(
      `"code: the code changed since this journal began (harness 0.1.0, commit 12345678… (clean) → harness 0.1.0, commit fedcba09… (clean)): record into a new --out, or pass --allow-code-change to continue with a caveat on every artifact"`,
    );
    expect(comparePins(pins(), pins(moved), { allowCodeChange: true })).toMatchInlineSnapshot(`
      {
        "caveats": [
          "CODE CHANGED: this sweep began on harness 0.1.0, commit 12345678… (clean) and was resumed on harness 0.1.0, commit fedcba09… (clean); cells recorded before and after the resume ran different code.",
        ],
        "ok": true,
      }
    `);
    const edited = { code: { state: 'git' as const, commit: '1234567890abcdef1234567890abcdef12345678', dirty: true, changes: hex('9') } };
    expect(refusal(edited)).toMatchInlineSnapshot(
      `"code: the code changed since this journal began (harness 0.1.0, commit 12345678… (clean) → harness 0.1.0, commit 12345678… + uncommitted changes 99999999…): record into a new --out, or pass --allow-code-change to continue with a caveat on every artifact"`,
    );
    expect(refusal({ harnessVersion: '0.2.0' })).toMatchInlineSnapshot(
      `"harnessVersion: the code changed since this journal began (harness 0.1.0, commit 12345678… (clean) → harness 0.2.0, commit 12345678… (clean)): record into a new --out, or pass --allow-code-change to continue with a caveat on every artifact"`,
    );
  });

  it('treats code it cannot identify as changed, never as the same', () => {
    const unknown = { code: { state: 'unknown' as const, reason: 'git is not installed' } };
    expect(refusal(unknown)).toMatchInlineSnapshot(
      `"code: the code cannot be shown to be the code this journal began with (harness 0.1.0, commit 12345678… (clean) → harness 0.1.0, unidentified code (git is not installed)): record into a new --out, or pass --allow-code-change to continue with a caveat on every artifact"`,
    );
    expect(comparePins(pins(unknown), pins(unknown)).ok).toBe(false);
  });

  it('checks data before code: a changed manifest is refused even when code changes are allowed', () => {
    const both = { manifest: { ...pins().manifest, sha256: hex('d') }, harnessVersion: '9.9.9' };
    expect(() => assertPinsMatch(pins(), pins(both), { allowCodeChange: true })).toThrow(JournalMismatchError);
    try {
      assertPinsMatch(pins(), pins(both), { allowCodeChange: true });
    } catch (error) {
      expect([(error as JournalMismatchError).code, (error as JournalMismatchError).field]).toEqual(['journal_mismatch', 'manifest']);
    }
  });
});

describe('folder digests', () => {
  it('depend on paths, content and the executable bit; not on location, bytecode or caches', async () => {
    const a = await temp('digest');
    await mkdir(path.join(a, 'pkg', '__pycache__'), { recursive: true });
    await writeFile(path.join(a, 'pkg', 'x.py'), 'print(1)\n');
    await writeFile(path.join(a, 'README'), 'hi\n');
    const first = await digestFolder(a);
    expect(first).toMatchObject({ state: 'present', files: 2 });
    const b = path.join(await temp('digest-copy'), 'moved');
    await cp(a, b, { recursive: true });
    await writeFile(path.join(b, 'pkg', '__pycache__', 'x.cpython-311.pyc'), 'bytecode');
    await writeFile(path.join(b, 'pkg', 'y.pyc'), 'bytecode');
    expect(await digestFolder(b)).toEqual(first);
    await chmod(path.join(b, 'README'), 0o755);
    expect(await digestFolder(b)).not.toEqual(first);
    await chmod(path.join(b, 'README'), 0o644);
    await writeFile(path.join(b, 'pkg', 'x.py'), 'print(2)\n');
    expect(await digestFolder(b)).not.toEqual(first);
  });

  it('tells a missing folder from an empty one', async () => {
    const dir = await temp('digest-empty');
    expect(await digestFolder(path.join(dir, 'nothing'))).toEqual({ state: 'absent' });
    expect(await digestFolder(dir)).toEqual({ state: 'present', files: 0, sha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' });
  });
});

function gitRepo(dir: string, ...args: string[][]): void {
  for (const a of args) execFileSync('git', a, { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
}

describe('code identity', () => {
  it('pins the commit and what the uncommitted changes are, ignoring every output folder', async () => {
    const repo = await temp('git');
    await writeFile(path.join(repo, 'code.ts'), 'export const a = 1;\n');
    gitRepo(repo, ['init', '-q'], ['add', '.'], ['commit', '-qm', 'one']);
    const clean = await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs'), path.join(repo, 'out', 'sweep')] });
    expect(clean).toMatchObject({ state: 'git', dirty: false, changes: null });
    // A sweep writing its results (in runs/ or its own --out) does not make the code dirty.
    await mkdir(path.join(repo, 'runs', 'smoke'), { recursive: true });
    await writeFile(path.join(repo, 'runs', 'smoke', 'journal.jsonl'), '{}\n');
    await mkdir(path.join(repo, 'out', 'sweep'), { recursive: true });
    await writeFile(path.join(repo, 'out', 'sweep', 'journal.jsonl'), '{}\n');
    expect(await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs'), path.join(repo, 'out', 'sweep')] })).toEqual(clean);
    // Without being told about out/sweep, it is an untracked change.
    expect(await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs')] })).toMatchObject({ dirty: true });
    await writeFile(path.join(repo, 'code.ts'), 'export const a = 2;\n');
    const edited = await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs'), path.join(repo, 'out')] });
    await writeFile(path.join(repo, 'code.ts'), 'export const a = 3;\n');
    const editedAgain = await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs'), path.join(repo, 'out')] });
    expect(edited).toMatchObject({ state: 'git', dirty: true });
    expect(editedAgain).toMatchObject({ state: 'git', dirty: true });
    expect(edited).not.toEqual(editedAgain);
    // An untracked file's content counts too.
    await writeFile(path.join(repo, 'code.ts'), 'export const a = 1;\n');
    await writeFile(path.join(repo, 'new.ts'), 'x\n');
    const untracked = await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs'), path.join(repo, 'out')] });
    await writeFile(path.join(repo, 'new.ts'), 'y\n');
    expect(await readCodeIdentity(repo, { outputDirs: [path.join(repo, 'runs'), path.join(repo, 'out')] })).not.toEqual(untracked);
  });

  it('says why when the code is not a git checkout', async () => {
    expect(await readCodeIdentity(await temp('nogit'))).toMatchObject({ state: 'unknown', reason: expect.stringMatching(/is not a git checkout with a commit$/) });
  });
});

/** The later pins: the roster the router routes by, the per-node allocations and the run id (not compared: a run's own name). */
const EXTRA = {
  roster: [
    { pair: 'executor' as const, name: 'sim-executor', model: 'sim-executor (SIMULATED)', provider: 'sim', family: 'sim-alpha', tier: 'medium' as const, rung: 2, roles: ['planner' as const], prices: { input: 0, output: 0, cachedInput: 0 }, fallbacks: [] },
  ],
  budget: { leafTokens: 800_000, assemblyTokens: 800_000 },
  runId: 'r-this-run',
};

describe('collectPins', () => {
  it('pins this repository: manifest bytes, spec, oracle, an absent corpus, code and version', async () => {
    const bytes = new TextEncoder().encode('version: 1\nname: x\n');
    const executor = pinPair({ provider: 'sim', model: 'sim-executor', family: 'sim-alpha', rung: 2 }, undefined);
    const reviewer = pinPair({ provider: 'openai-compatible', model: 'reviewer-model', family: 'family-b', rung: 3 }, {
      version: 1,
      providers: { gateway: { base_url: 'https://api.example.com/v1', api_key_env: 'GATEWAY_KEY' } },
      models: { 'reviewer-model': { provider: 'gateway', model: 'vendor-b/model', family: 'vendor-b' } },
    });
    const collected = await collectPins({
      manifestBytes: bytes,
      manifestShownAs: 'manifests/x.yaml',
      specDir: specDir('sqlcsv'),
      oracleDir: oracleDir('sqlcsv'),
      simCorpusDir: path.join(REPO_ROOT, 'harness', 'sim', 'no-corpus-here'),
      repoRoot: REPO_ROOT,
      executor,
      reviewer,
      simulated: { seed: 1 },
      harnessVersion: await readHarnessVersion(REPO_ROOT),
      ...EXTRA,
    });
    expect(collected.manifest).toEqual({ path: 'manifests/x.yaml', sha256: createHash('sha256').update(bytes).digest('hex'), bytes: 19 });
    expect(collected.spec).toMatchObject({ path: 'spec/sqlcsv', content: { state: 'present' } });
    expect(collected.oracle).toMatchObject({ path: 'oracle/sqlcsv', content: { state: 'present' } });
    expect(collected.simCorpus.content).toEqual({ state: 'absent' });
    expect(collected.code.state).toBe('git');
    expect(collected.harnessVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(reviewer).toEqual({ provider: 'openai-compatible', model: 'reviewer-model', realModel: 'vendor-b/model', endpoint: 'gateway', declaredFamily: 'family-b', realFamily: 'vendor-b', rung: 3 });
    expect(executor).toEqual({ provider: 'sim', model: 'sim-executor', realModel: 'sim-executor', endpoint: 'sim', declaredFamily: 'sim-alpha', realFamily: 'sim-alpha', rung: 2 });
    // The same inputs pin the same; a fold like --max-sessions never reaches the bytes.
    expect(comparePins(collected, await collectPins({ manifestBytes: bytes, manifestShownAs: 'other/path.yaml', specDir: specDir('sqlcsv'), oracleDir: oracleDir('sqlcsv'), simCorpusDir: path.join(REPO_ROOT, 'harness', 'sim', 'no-corpus-here'), repoRoot: REPO_ROOT, executor, reviewer, simulated: { seed: 1 }, harnessVersion: collected.harnessVersion, ...EXTRA, runId: 'r-another-run' }))).toEqual({ ok: true, caveats: [] });
  });
});
