import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scanOutput } from '../../site/scripts/scan-output.js';
import { SecretScanner } from '../../site/scripts/secret-scan.js';
import { SAMPLES, pieces } from './secret-samples.js';

/**
 * The post-build scan on a folder shaped like a built site: every file, whatever its kind
 * (pages, charts, downloads, binary assets) and its name, read with its format's decodings.
 */

const sample = (kind: string) => SAMPLES.find((s) => s.kind === kind)!;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdh-scan-output-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function site(files: Record<string, string | Buffer>): Promise<string> {
  const root = await mkdtemp(path.join(dir, 'site-'));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return root;
}

const CLEAN = {
  'index.html': '<!doctype html>\n<html><body><h1>Sweeps</h1><p>tokens used: 12,345</p></body></html>\n',
  'runs/r/index.html': '<!doctype html>\n<p>key findings &amp; caveats</p>\n',
  'runs/r/charts/cells.svg': '<svg xmlns="http://www.w3.org/2000/svg"><text>survival</text></svg>',
  'runs/r/report.json': '{\n  "caveats": []\n}\n',
  'runs/r/cells.csv': 'cell,simulated\ncap1-rep1-gated,true\n',
  'favicon.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0xfe]),
};

describe('the post-build scan', () => {
  it('finds nothing in a clean site, and counts every file it read', async () => {
    expect(await scanOutput(await site(CLEAN), new SecretScanner([]))).toEqual({ files: 6, findings: [] });
  });

  it('finds a planted token in each kind of built file, with its decodings, naming file, line and class, never the value', async () => {
    const openai = sample('openai_key');
    const groq = sample('groq_key');
    const stripe = sample('stripe_key');
    const hf = sample('huggingface_token');
    const npm = sample('npm_token');
    const gitlab = sample('gitlab_token');
    const root = await site({
      ...CLEAN,
      'runs/r/cells/c/index.html': `<!doctype html>\n<main>\n<pre>&#115;${openai.secret.slice(1)}</pre>\n</main>\n`,
      'runs/r/charts/cost.svg': `<svg xmlns="http://www.w3.org/2000/svg">\n<title>note&#10;${groq.secret}</title></svg>`,
      'runs/r/report.json': `{\n  "caveats": [{"kind": "recorded", "text": "x\\n${stripe.secret}"}]\n}\n`,
      'runs/r/claims.csv': `cell,leaf\n"c","note\\t${hf.secret}"\n`,
      'runs/r/pairs/cap1-rep1/events.jsonl': `{"type":"x"}\n{"goal":"${JSON.stringify(`y\n${npm.secret}`).slice(1, -1).replace(/\\/g, '\\\\')}"}\n`,
      'assets/logo.png': Buffer.concat([Buffer.from([0x89, 0x50, 0xff, 0xfe]), Buffer.from(` ${gitlab.secret} `, 'latin1'), Buffer.from([0x00])]),
    });
    const { files, findings } = await scanOutput(root, new SecretScanner([]));
    expect(files).toBe(11);
    expect(findings.map((f) => [f.file, f.line, f.kind])).toEqual([
      ['assets/logo.png', 1, 'gitlab_token'],
      ['runs/r/cells/c/index.html', 3, 'openai_key'],
      ['runs/r/charts/cost.svg', 2, 'groq_key'],
      ['runs/r/claims.csv', 2, 'huggingface_token'],
      ['runs/r/pairs/cap1-rep1/events.jsonl', 2, 'npm_token'],
      ['runs/r/report.json', 2, 'stripe_key'],
    ]);
    for (const s of [openai, groq, stripe, hf, npm, gitlab]) for (const piece of pieces(s.secret)) expect(JSON.stringify(findings)).not.toContain(piece);
  });

  it("finds a token in a file's name (it would be a URL) and the configured keys' values", async () => {
    const github = sample('github_token');
    const value = ['correct', 'horse', 'battery', 'staple'].join('-');
    const root = await site({ ...CLEAN, [`runs/r/sessions/${github.secret}/index.html`]: '<p>ok</p>', 'runs/r/x/index.html': `<p>echo ${value}</p>` });
    const { findings } = await scanOutput(root, new SecretScanner([{ name: 'GATEWAY_KEY', value }]));
    expect(findings.map((f) => [f.file.startsWith('runs/r/sessions/') ? 'a session page' : f.file, f.line, f.kind, f.variable])).toEqual([
      ['a session page', null, 'github_token', null],
      ['runs/r/x/index.html', 1, 'known_value', 'GATEWAY_KEY'],
    ]);
  });
});
