import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processAlive } from '../../engine/index.js';
import { buildSite, makeSite, parseArgs, type Io, type MakeSiteOptions } from '../../site/scripts/make-site.js';
import { writeRunFixture } from '../support/run-fixture.js';
import { PLACEMENTS, PUBLISHED, payloadFor } from './secret-plants.js';
import { SAMPLES, pieces, type Sample } from './secret-samples.js';

/**
 * make_site's staging: only the allowlist is copied, and a secret in any admitted file stops
 * everything before a byte is copied, naming file, line and kind, never the value. Runs the
 * stage in-process (--stage-only) on a fixture run; one end-to-end case runs make_site.sh.
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
let tmp: string;
let run: string;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-make-site-'));
  run = path.join(tmp, 'runs', 'fixture-run');
  await writeRunFixture(run);
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

function capture(): Io & { text(): string; outLines: string[]; errLines: string[] } {
  const outLines: string[] = [];
  const errLines: string[] = [];
  return { out: (l) => outLines.push(l), err: (l) => errLines.push(l), outLines, errLines, text: () => [...outLines, ...errLines].join('\n') };
}

/** The environment a stage sees: nothing from this machine's own keys. */
const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, ...extra });

async function stage(args: string[], env = cleanEnv()) {
  const data = path.join(tmp, `data-${Math.random().toString(36).slice(2)}`);
  const io = capture();
  const code = await makeSite(['--stage-only', '--data', data, ...args], io, env);
  return { code, io, data };
}

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.isDirectory()) await walk(path.join(d, e.name), `${rel}${e.name}/`);
      else out.push(`${rel}${e.name}`);
    }
  };
  await walk(dir, '');
  return out.sort();
}

/** Plants `text` into one admitted file of the fixture run (keeping it a valid file of its kind), runs `body`, then restores it. */
async function planted<T>(where: PlantSite, text: string, body: () => Promise<T>): Promise<T> {
  const file = path.join(run, where.file);
  const before = await readFile(file, 'utf8');
  await writeFile(file, where.plant(before, text));
  try {
    return await body();
  } finally {
    await writeFile(file, before);
  }
}

interface PlantSite {
  kind: string;
  file: string;
  plant(content: string, text: string): string;
}

const jsonLines = (edit: (record: Record<string, any>, text: string) => void) => (content: string, text: string) =>
  content
    .split('\n')
    .map((line, i) => {
      if (i !== 1 || !line) return line;
      const record = JSON.parse(line);
      edit(record, text);
      return JSON.stringify(record);
    })
    .join('\n');

/** Every kind of file the allowlist admits, with a place in it where a secret could be written. */
const SITES: PlantSite[] = [
  { kind: 'transcript', file: 'cells/cap1-rep1-gated/transcripts/root.1%2Fworker%2F1.jsonl', plant: jsonLines((r, t) => (r.toolCalls?.length ? (r.toolCalls[0].arguments = JSON.stringify({ command: t })) : (r.content = t))) },
  { kind: 'events', file: 'cells/cap1-rep1-gated/events.jsonl', plant: jsonLines((r, t) => (r.assumptions = [t])) },
  { kind: 'result', file: 'cells/cap2-rep1-ungated/result.json', plant: (c, t) => JSON.stringify({ ...JSON.parse(c), reasons: [t] }, null, 2) },
  { kind: 'grade', file: 'cells/cap1-rep1-ungated/grade.json', plant: (c, t) => JSON.stringify({ ...JSON.parse(c), tree: t }, null, 2) },
  { kind: 'report', file: 'report/report.json', plant: (c, t) => JSON.stringify({ ...JSON.parse(c), caveats: [{ kind: 'recorded', text: t }] }, null, 2) },
  { kind: 'chart', file: 'report/charts/cost.svg', plant: (c, t) => c.replace('</svg>', `<text x="1" y="1">${t.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</text></svg>`) },
  { kind: 'spec', file: 'report/charts/cost.vl.json', plant: (c, t) => JSON.stringify({ ...JSON.parse(c), description: t }, null, 2) },
];

function expectRefused(result: { code: number; io: ReturnType<typeof capture> }, sample: Sample, site: PlantSite) {
  const out = result.io.text();
  expect(result.code, out).toBe(3);
  expect(out).toMatch(new RegExp(`fixture-run/${site.file.replace(/[.%]/g, (c) => `\\${c}`)} line \\d+: ${sample.kind}`));
  expect(out).toContain('nothing was staged or published');
  for (const piece of pieces(sample.secret)) expect(out, `output holds part of the secret: ${piece.length} characters`).not.toContain(piece);
}

/**
 * Build folders (`site/.build-<pid>`) left behind: this process's own, or one whose process is
 * gone. Another test file may be building at the same moment, in its own folder: not a leak.
 */
async function leftBuilds(): Promise<string[]> {
  const site = path.join(REPO, 'site');
  const left: string[] = [];
  for (const name of (await readdir(site)).filter((n) => n.startsWith('.build-'))) {
    const pid = Number(name.slice('.build-'.length));
    if (pid !== process.pid && processAlive(pid)) continue;
    // A build that ended between the listing and now removed its folder on the way out.
    if (await stat(path.join(site, name)).then(() => true, () => false)) left.push(name);
  }
  return left;
}

describe('make_site staging', () => {
  it('copies exactly the allowlisted files, and reports the others (a .env, a stray key file, the journal) as not published', async () => {
    await writeFile(path.join(run, '.env'), 'HARMLESS=1\n');
    await writeFile(path.join(run, 'cells', 'cap1-rep1-gated', 'id_ed25519.pub'), 'ssh-ed25519 AAAA example\n');
    await mkdir(path.join(run, 'cells', 'cap1-rep1-gated', 'tree'), { recursive: true });
    await writeFile(path.join(run, 'cells', 'cap1-rep1-gated', 'tree', 'secret.txt'), 'a graded tree file\n');
    try {
      const { code, io, data } = await stage([run]);
      expect(code, io.text()).toBe(0);
      const staged = await filesUnder(path.join(data, 'runs', 'fixture-run'));
      const source = await filesUnder(run);
      expect(staged.length).toBeGreaterThan(40);
      expect(staged.every((f) => source.includes(f))).toBe(true);
      expect(staged.filter((f) => !/^(report\/report\.json|report\/charts\/[a-z-]+\.(svg|vl\.json)|cells\/cap\d-rep1-(gated|ungated)\/(result\.json|grade\.json|events\.jsonl|transcripts\/[^/]+\.jsonl))$/.test(f))).toEqual([]);
      for (const f of ['.env', 'journal.jsonl', 'manifest.yaml', 'report/report.md', 'cells/cap1-rep1-gated/id_ed25519.pub', 'cells/cap1-rep1-gated/tree/secret.txt']) expect(staged).not.toContain(f);
      // Each chart's vega-lite spec is published beside its SVG, as a download.
      expect(staged).toContain('report/charts/cells.vl.json');
      const said = io.outLines.join('\n');
      expect(said).toContain('not on the allowlist, not published: .env, cells/cap1-rep1-gated/id_ed25519.pub, cells/cap1-rep1-gated/tree/ (a graded tree)');
      expect(said).toContain('journal.jsonl');
      // Byte for byte what was scanned.
      expect(await readFile(path.join(data, 'runs', 'fixture-run', 'report', 'report.json'), 'utf8')).toBe(await readFile(path.join(run, 'report', 'report.json'), 'utf8'));
    } finally {
      await rm(path.join(run, '.env'));
      await rm(path.join(run, 'cells', 'cap1-rep1-gated', 'id_ed25519.pub'));
      await rm(path.join(run, 'cells', 'cap1-rep1-gated', 'tree'), { recursive: true });
    }
  });

  it('skips a symbolic link even when its name is on the allowlist', async () => {
    const link = path.join(run, 'cells', 'cap2-rep1-gated', 'grade.json');
    const kept = path.join(tmp, 'grade.json.kept');
    await cp(link, kept);
    await rm(link);
    await symlink(path.join(REPO, 'package.json'), link);
    try {
      const { code, io, data } = await stage([run]);
      expect(code, io.text()).toBe(0);
      expect(io.text()).toContain('cells/cap2-rep1-gated/grade.json (a symbolic link)');
      expect(await stat(path.join(data, 'runs', 'fixture-run', 'cells', 'cap2-rep1-gated', 'grade.json')).catch(() => null)).toBeNull();
    } finally {
      await rm(link);
      await cp(kept, link);
    }
  });

  describe('refuses every secret format planted in a transcript, naming file, line and kind, never the value', () => {
    for (const sample of SAMPLES) {
      it(sample.name, async () => {
        const result = await planted(SITES[0]!, sample.text, () => stage([run]));
        expectRefused(result, sample, SITES[0]!);
        expect(await stat(result.data).catch(() => null), 'nothing is staged').toBeNull();
      });
    }
  });

  describe('refuses a secret in every kind of file the allowlist admits', () => {
    for (const site of SITES) {
      for (const sample of [SAMPLES[1]!, SAMPLES[10]!, SAMPLES[12]!]) {
        it(`${site.kind}: ${sample.name}`, async () => {
          expectRefused(await planted(site, sample.text, () => stage([run])), sample, site);
        });
      }
    }
  });

  it('refuses a key hidden behind JSON escapes or XML character references (the site would show it decoded)', async () => {
    const sample = SAMPLES[0]!;
    const jsonEscaped = sample.secret.replace(/[a-z]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const transcript = { ...SITES[0]!, plant: (c: string) => c.replace('FIXTURE goal', `FIXTURE ${jsonEscaped} goal`) };
    expectRefused(await planted(transcript, '', () => stage([run])), sample, transcript);
    const xmlEscaped = sample.secret.replace(/[a-z]/g, (c) => `&#${c.charCodeAt(0)};`);
    const chart = { ...SITES[5]!, plant: (c: string) => c.replace('</svg>', `<text>${xmlEscaped}</text></svg>`) };
    expectRefused(await planted(chart, '', () => stage([run])), sample, chart);
  });

  it('refuses the value of every variable a provider configuration names in api_key_env, when set', async () => {
    // A key in no known format: only its value, read from the environment, can find it.
    const value = ['correct', 'horse', 'battery', 'staple', 'lantern'].join('-');
    const providers = path.join(tmp, 'providers.yaml');
    await writeFile(providers, 'version: 1\nproviders:\n  gateway:\n    base_url: https://api.example.com/v1\n    api_key_env: MY_GATEWAY_SECRET\nmodels: {}\n');
    const sample: Sample = { name: 'configured key', kind: 'known_value', text: `upstream echoed ${value}`, tight: value, secret: value };
    const site = SITES[0]!;
    const env = cleanEnv({ MY_GATEWAY_SECRET: value });
    const viaFlag = await planted(site, sample.text, () => stage(['--providers', providers, run], env));
    expectRefused(viaFlag, sample, site);
    expect(viaFlag.io.text()).toContain('known_value (the value of MY_GATEWAY_SECRET)');
    expectRefused(await planted(site, sample.text, () => stage([run], { ...env, RDH_PROVIDERS: providers })), sample, site);
    // The mechanism, shown by its absence: unset, or named by no configuration, the value passes.
    expect((await planted(site, sample.text, () => stage(['--providers', providers, run]))).code).toBe(0);
    expect((await planted(site, sample.text, () => stage([run], env))).code).toBe(0);
  });

  it('refuses a file that is not UTF-8 text, which a scan could not read', async () => {
    const file = path.join(run, SITES[2]!.file);
    const before = await readFile(file);
    await writeFile(file, Buffer.concat([before, Buffer.from([0xff, 0xfe, 0x00])]));
    try {
      const { code, io } = await stage([run]);
      expect(code).toBe(3);
      expect(io.text()).toContain('cells/cap2-rep1-ungated/result.json: not UTF-8 text');
    } finally {
      await writeFile(file, before);
    }
  });

  it('refuses bad input with one line and exit 2: an unknown flag, a bad --base, a run without a report, a missing provider configuration', async () => {
    const cases: Array<[string[], string]> = [
      [['--colour'], 'unknown option --colour'],
      [['--base', 'sub'], '--base "sub": give a path that starts and ends with "/"'],
      [[path.join(tmp, 'nothing-here')], 'not a folder'],
      [['--providers', path.join(tmp, 'missing.yaml'), run], 'not a readable file'],
    ];
    const bare = path.join(tmp, 'runs', 'no-report');
    await mkdir(bare, { recursive: true });
    cases.push([[bare], 'has no report/report.json; build it with: npm run harness -- report']);
    for (const [args, message] of cases) {
      const { code, io } = await stage(args);
      expect(code, io.text()).toBe(2);
      expect(io.errLines.join('\n')).toContain(message);
    }
  });

  it('make_site.sh end to end: a run file that does not match its schema stops the build with exit 4, naming file, line and field; the old site stays', async () => {
    const bad = path.join(tmp, 'runs', 'stale-run');
    await cp(run, bad, { recursive: true });
    const events = path.join(bad, 'cells', 'cap1-rep1-gated', 'events.jsonl');
    const lines = (await readFile(events, 'utf8')).split('\n');
    lines[2] = JSON.stringify({ ...JSON.parse(lines[2]!), nodeId: 42 });
    await writeFile(events, lines.join('\n'));
    const out = path.join(tmp, 'stale-out');
    await mkdir(out);
    await writeFile(path.join(out, 'index.html'), 'the site before');
    const result = await promisify(execFile)(path.join(REPO, 'make_site.sh'), ['--out', out, '--data', path.join(tmp, 'stale-data'), bad], { env: cleanEnv(), cwd: tmp }).then(
      () => ({ code: 0, output: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: `${error.stdout}\n${error.stderr}` }),
    );
    expect(result.code, result.output).toBe(4);
    expect(result.output).toContain('runs/stale-run/cells/cap1-rep1-gated/events.jsonl line 3: does not match its schema (');
    expect(result.output).toMatch(/make_site: the site build failed \(astro build exited \d+\); the message above names the file\. Nothing was published/);
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toBe('the site before');
  });

  it('make_site.sh end to end: a planted key exits 3 and publishes nothing, and its output never holds the key', async () => {
    const sample = SAMPLES[2]!;
    const out = path.join(tmp, 'site-out');
    const result = await planted(SITES[0]!, sample.text, () =>
      promisify(execFile)(path.join(REPO, 'make_site.sh'), ['--out', out, '--data', path.join(tmp, 'e2e-data'), run], { env: cleanEnv(), cwd: tmp }).then(
        () => ({ code: 0, output: '' }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: `${error.stdout}\n${error.stderr}` }),
      ),
    );
    expect(result.code, result.output).toBe(3);
    expect(result.output).toMatch(/transcripts\/root\.1%2Fworker%2F1\.jsonl line 2: anthropic_key/);
    for (const piece of pieces(sample.secret)) expect(result.output).not.toContain(piece);
    expect(await stat(out).catch(() => null)).toBeNull();
    expect(await stat(path.join(tmp, 'e2e-data')).catch(() => null)).toBeNull();
  });

  /** Every file under `dir` whose text holds any piece of any of `secrets`. */
  async function leaksUnder(dir: string, secrets: readonly Sample[]): Promise<string[]> {
    const leaks: string[] = [];
    for (const rel of await filesUnder(dir)) {
      const text = await readFile(path.join(dir, rel), 'latin1');
      if (secrets.some((s) => pieces(s.secret).some((p) => text.includes(p)))) leaks.push(rel);
    }
    return leaks;
  }

  const sh = (args: string[]) =>
    promisify(execFile)(path.join(REPO, 'make_site.sh'), args, { env: cleanEnv(), cwd: tmp, maxBuffer: 64 * 1024 * 1024 }).then(
      ({ stdout, stderr }) => ({ code: 0, output: `${stdout}\n${stderr}` }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: `${error.stdout}\n${error.stderr}` }),
    );

  it('make_site.sh end to end: tokens of new classes, one in each kind of file, each placement, refuse with exit 3 and leak nowhere', async () => {
    const planted = path.join(tmp, 'runs', 'planted-run');
    await cp(run, planted, { recursive: true });
    const kinds = ['groq_key', 'stripe_key', 'huggingface_token', 'npm_token', 'gitlab_token', 'slack_webhook'] as const;
    const plants = PUBLISHED.map((published, i) => ({ published, sample: SAMPLES.find((s) => s.kind === kinds[i])!, placement: PLACEMENTS[i % PLACEMENTS.length]! }));
    for (const { published, sample, placement } of plants) {
      const file = path.join(planted, published.file);
      await writeFile(file, published.plant(await readFile(file, 'utf8'), payloadFor(published, placement, sample)));
    }
    const out = path.join(tmp, 'planted-out');
    const data = path.join(tmp, 'planted-data');
    const result = await sh(['--out', out, '--data', data, planted]);
    expect(result.code, result.output).toBe(3);
    for (const { published, sample, placement } of plants) {
      expect(result.output, `${published.kind} ${placement.name}`).toMatch(new RegExp(`planted-run/${published.file.replace(/[.%]/g, (c) => `\\${c}`)} line \\d+: ${sample.kind}`));
    }
    for (const { sample } of plants) for (const piece of pieces(sample.secret)) expect(result.output, `the output holds ${sample.kind}`).not.toContain(piece);
    // Nothing was written: no site, no staged data, no staging or build folder left behind.
    expect(await stat(out).catch(() => null)).toBeNull();
    expect(await stat(data).catch(() => null)).toBeNull();
    expect((await readdir(tmp)).filter((n) => n.startsWith('planted-'))).toEqual([]);
    expect(await leftBuilds()).toEqual([]);
  });

  it('a token in a file name: an admitted file so named is refused (its name would be a URL), a skipped one is listed with the name redacted; neither name is printed', async () => {
    const github = SAMPLES.find((s) => s.kind === 'github_token')!;
    const openai = SAMPLES.find((s) => s.kind === 'openai_key' && s.secret.includes('proj-'))!;
    const stray = path.join(run, `notes-${github.secret}.txt`);
    await writeFile(stray, 'harmless\n');
    try {
      const skipped = await stage([run]);
      expect(skipped.code, skipped.io.text()).toBe(0);
      expect(skipped.io.text()).toContain('notes-[REDACTED github_token].txt');
      for (const piece of pieces(github.secret)) expect(skipped.io.text()).not.toContain(piece);
      const transcripts = path.join(run, 'cells', 'cap1-rep1-gated', 'transcripts');
      const named = path.join(transcripts, `${openai.secret}.jsonl`);
      await cp(path.join(transcripts, 'root.1%2Fworker%2F1.jsonl'), named);
      try {
        const refused = await stage([run]);
        expect(refused.code, refused.io.text()).toBe(3);
        expect(refused.io.text()).toMatch(/transcripts\/\[REDACTED openai_key\]\.jsonl \(its path\): openai_key/);
        for (const piece of [...pieces(openai.secret), ...pieces(github.secret)]) expect(refused.io.text()).not.toContain(piece);
      } finally {
        await rm(named);
      }
    } finally {
      await rm(stray);
    }
  });

  it('the negative control: the unplanted fixture run and the committed runs/example-sim stage and scan clean', async () => {
    const { code, io, data } = await stage([run, path.join(REPO, 'runs', 'example-sim')]);
    expect(code, io.text()).toBe(0);
    expect(io.errLines).toEqual([]);
    expect(await filesUnder(path.join(data, 'runs', 'example-sim'))).toContain('report/report.json');
  });

  it('the post-build scan (one full astro build): a page that shows a token is refused with exit 3 before it is swapped in; the previous site stays and nothing leaks', async () => {
    // Staged by hand, past the staging scan: what the build makes of it is all the post-build scan sees.
    const data = path.join(tmp, 'hand-staged');
    const staged = path.join(data, 'runs', 'built-run');
    await cp(run, staged, { recursive: true });
    for (const f of ['journal.jsonl', 'manifest.yaml', 'report/report.md']) await rm(path.join(staged, f), { force: true });
    for (const f of await filesUnder(path.join(staged, 'report', 'charts'))) if (f.endsWith('.vl.json')) await rm(path.join(staged, 'report', 'charts', f));
    const xai = SAMPLES.find((s) => s.kind === 'xai_key')!;
    const transcript = PUBLISHED[0]!;
    const file = path.join(staged, transcript.file);
    await writeFile(file, transcript.plant(await readFile(file, 'utf8'), `FIXTURE goal, and then\n${xai.tight}`));
    const out = path.join(tmp, 'built-out');
    await mkdir(out);
    await writeFile(path.join(out, 'index.html'), 'the site before');
    const options = parseArgs(['--out', out, '--data', data]) as MakeSiteOptions;
    const io = capture();
    const error = await buildSite(options, io, cleanEnv()).then(() => null, (e: unknown) => e as { exitCode?: number; message: string });
    const said = `${io.text()}\n${error?.message ?? ''}`;
    expect(error?.exitCode, said).toBe(3);
    expect(error!.message).toContain('of the built site (values not shown); nothing was published');
    expect(said).toMatch(/the built page runs\/built-run\/\S+ line \d+: xai_key/);
    for (const piece of pieces(xai.secret)) expect(said).not.toContain(piece);
    expect(await readFile(path.join(out, 'index.html'), 'utf8')).toBe('the site before');
    expect(await leaksUnder(out, [xai])).toEqual([]);
    expect(await leftBuilds()).toEqual([]);
  }, 300_000);
});
