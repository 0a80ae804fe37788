import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RdhError } from '../../engine/index.js';
import { BUG_CODES, EXIT, EXIT_DESCRIPTIONS, REPO_ROOT, VERSION, buildProgram, exitCodeFor, loadProviderConfig, runCli } from '../../harness/index.js';
import { bufferIo } from '../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest/manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

async function run(...argv: string[]) {
  const io = bufferIo();
  const code = await runCli(argv, io);
  return { code, stdout: io.stdout(), stderr: io.stderr() };
}

/** Runs the real binary with its standard output closed before it writes anything. */
function runWithClosedStdout(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'harness/bin.js'), ...argv], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** Every source file under `dir`, for the scans below. */
async function sources(dir: string): Promise<string[]> {
  const files = (await readdir(path.join(REPO_ROOT, dir), { recursive: true })).map(String).filter((f) => f.endsWith('.ts'));
  return files.map((f) => path.join(REPO_ROOT, dir, f));
}

describe('harness --version (item 13)', () => {
  it('prints the version from package.json and exits 0', async () => {
    const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    expect(await run('--version')).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    expect(await run('-V')).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  });
});

describe('output to a closed pipe (item 13)', () => {
  it('ends quietly, with no EPIPE stack trace, when the reader has gone (harness --help | head -1)', async () => {
    const results = await Promise.all([runWithClosedStdout(['--help']), runWithClosedStdout(['plan', 'manifests/smoke.yaml', '--json'])]);
    expect(results).toEqual([
      { code: 0, stderr: '' },
      { code: 0, stderr: '' },
    ]);
  });
});

describe('messages speak to users (item 13)', () => {
  it('says base_url must be http(s), never repeating the URL', async () => {
    const config = { version: 1, providers: { g: { base_url: 'x', api_key_env: 'K' } }, models: {} };
    const lines: string[] = [];
    for (const url of ['ftp://files.example/v1', 'file:///etc/passwd', 'gateway.example/v1', 'ftp://user:secret@files.example/v1']) {
      const file = await tmp.write(`url-${lines.length}.yaml`, yamlOf(patched(config, { providers: { g: { base_url: url } } })));
      lines.push(((await loadProviderConfig(file).catch((e: unknown) => e)) as Error).message.replace(/^.*url-\d\.yaml/gm, '<file>'));
    }
    expect(lines).toMatchInlineSnapshot(`
      [
        "<file>:4: providers.g.base_url: must be an http:// or https:// URL; e.g. base_url: "https://api.example.com/v1"",
        "<file>:4: providers.g.base_url: must be an http:// or https:// URL; e.g. base_url: "https://api.example.com/v1"",
        "<file>:4: providers.g.base_url: must be an http:// or https:// URL; e.g. base_url: "https://api.example.com/v1"",
        "<file>:4: providers.g.base_url: must be an http:// or https:// URL; e.g. base_url: "https://api.example.com/v1"",
      ]
    `);
  });

  it('never tells a person to call a library function', async () => {
    const valid = yamlOf(VALID_MANIFEST);
    const texts = [`${valid}---\n${valid}`, `? {a: 1}\n: 2\n${valid}`, valid.replace('name: fixture', 'name: !!binary fixture')];
    for (const [i, text] of texts.entries()) {
      const { code, stderr } = await run('plan', await tmp.write(`library-${i}.yaml`, text));
      expect(code, text).toBe(2);
      expect(stderr).not.toMatch(/YAML\.\w+\(|parseAllDocuments|mapAsMap|Set \w+: true|zod|Invalid input/i);
    }
  });

  it('mentions no flag that the CLI does not have', async () => {
    const known = new Set(['--help', '--version']);
    const collect = (command: Command): void => {
      for (const option of command.options) if (option.long) known.add(option.long);
      command.commands.forEach(collect);
    };
    collect(await buildProgram(bufferIo()));
    // Flags of other programs, written into their command lines: a Dockerfile's RUN line, grep in
    // the SIMULATED merger's listing, the sqlcsv program under grading (the spec's own CLI), and
    // apt-get's, named where a peer's Debian package must be reinstalled.
    const otherPrograms = new Set(['--no-install-recommends', '--include', '--format', '--reinstall']);
    const unknown: string[] = [];
    for (const file of [...(await sources('harness')), ...(await sources('engine'))]) {
      const text = await readFile(file, 'utf8');
      // Prose only: a literal with a space in it is a message, help text or a shell line; argv
      // arrays pass other programs' flags as single-word literals.
      const literals = (text.match(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? []).filter((literal) => literal.includes(' '));
      for (const literal of literals) {
        for (const flag of literal.match(/(?<![\w-])--[a-z][a-z-]*/g) ?? []) {
          if (!known.has(flag) && !otherPrograms.has(flag)) unknown.push(`${path.relative(REPO_ROOT, file)}: ${flag}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });
});

describe('plan --json (item 14)', () => {
  it('has a version and no absolute path, even when given absolute paths', async () => {
    const manifest = path.join(REPO_ROOT, 'manifests/recursion-depth.yaml');
    const providers = path.join(REPO_ROOT, 'manifests/providers.example.yaml');
    const { code, stdout } = await run('plan', manifest, '--providers', providers, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as Record<string, unknown>;
    expect(report.version).toBe(1);
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (value && typeof value === 'object') Object.values(value).forEach(walk);
    };
    walk(report);
    expect(strings.filter((s) => path.isAbsolute(s) || s.includes(REPO_ROOT))).toEqual([]);
    const relative = path.relative(process.cwd(), REPO_ROOT);
    expect(report.manifest).toMatchObject({ file: path.join(relative, 'manifests/recursion-depth.yaml'), specDir: path.join(relative, 'spec/sqlcsv') });
    expect((report.pricing as { providers: string }).providers).toBe(path.join(relative, 'manifests/providers.example.yaml'));
  });

  it('is documented in docs/plan.md, field by field', async () => {
    const { stdout } = await run('plan', 'manifests/smoke.yaml', '--json');
    const readme = await readFile(path.join(REPO_ROOT, 'docs/plan.md'), 'utf8');
    const section = readme.slice(readme.indexOf('`--json` prints the same plan'));
    const documented = [...section.matchAll(/^\| `([^`]+)`(?:, `([^`]+)`)? \|/gm)].flatMap((m) => [m[1], m[2]].filter(Boolean));
    // Every field printed is documented; the one documented field it lacks is present only when the manifest declares a hypothesis.
    const printed = Object.keys(JSON.parse(stdout));
    expect(printed.filter((k) => !documented.includes(k))).toEqual([]);
    expect(documented.filter((k) => !printed.includes(k!))).toEqual(['hypothesis']);
  });
});

describe('exit codes (item 15)', () => {
  /** Every error code any class in engine/ or harness/ declares. */
  async function declaredCodes(): Promise<Map<string, string>> {
    const codes = new Map<string, string>();
    for (const file of [...(await sources('harness')), ...(await sources('engine'))]) {
      for (const m of (await readFile(file, 'utf8')).matchAll(/readonly code = '([a-z_]+)'/g)) codes.set(m[1]!, path.relative(REPO_ROOT, file));
    }
    return codes;
  }
  class Probe extends RdhError {
    constructor(readonly code: string) {
      super(`probe ${code}`);
    }
  }

  it('maps every error class to a documented exit code, and no harness error to 1 (reserved for bugs)', async () => {
    const codes = await declaredCodes();
    expect(codes.size).toBeGreaterThan(10);
    const documented = new Set(EXIT_DESCRIPTIONS.map(([code]) => code));
    const mapping = Object.fromEntries([...codes.keys()].sort().map((code) => [code, exitCodeFor(new Probe(code))]));
    for (const [code, exit] of Object.entries(mapping)) expect(documented.has(exit), code).toBe(true);
    const harnessBugs = [...codes].filter(([code, file]) => file.startsWith('harness') && mapping[code] === EXIT.internal && !BUG_CODES.has(code));
    expect(harnessBugs).toEqual([]);
    // The whole table, so a change to it is seen in review.
    expect(mapping).toMatchInlineSnapshot(`
      {
        "budget_exhausted": 1,
        "contract_missing": 1,
        "docker_unavailable": 3,
        "fault_plan_invalid": 2,
        "grading_refused": 4,
        "journal_busy": 2,
        "journal_event_invalid": 1,
        "journal_invalid": 2,
        "journal_mismatch": 2,
        "journal_write_failed": 3,
        "look_refused": 2,
        "manifest_invalid": 2,
        "model_configuration": 6,
        "model_quota_exhausted": 5,
        "model_rate_limited": 3,
        "model_response_invalid": 3,
        "model_unavailable": 3,
        "no_eligible_model": 6,
        "no_sandbox_host": 3,
        "oracle_invalid": 4,
        "peer_package_missing": 3,
        "provider_config_invalid": 2,
        "replay_diverged": 7,
        "sandbox_build_failed": 3,
        "sandbox_disposed": 1,
        "sandbox_host_lost": 3,
        "sandbox_image_missing": 3,
        "sandbox_processes_left": 3,
        "sandboxes_closed": 130,
        "sim_defect_model": 1,
        "sim_defect_table": 1,
        "sim_population": 1,
        "sim_request_refused": 2,
        "sim_server_listen": 3,
        "spec_invalid": 2,
        "structured_output_unreadable": 6,
        "survival_data_invalid": 2,
        "task_invalid": 2,
        "transcript_gap": 1,
        "usage": 2,
        "workspace_listing": 3,
        "workspace_path": 2,
      }
    `);
  });
});
