import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../harness/index.js';
import { bufferIo } from '../harness/testing.js';

/**
 * The manual holds together: every relative link in README.md and docs/*.md reaches a file (and
 * its #anchor, as GitHub spells a heading's), and every command in a fenced block of the README
 * names a real harness subcommand with real flags, an npm script, or a file that exists.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const PAGES = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text outside fenced blocks and inline code, where a link means a link. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Every relative link of a page that does not resolve, as `page: target (why)`. */
export function brokenLinks(page: string, markdown: string, read: (file: string) => string | undefined): string[] {
  const broken: string[] = [];
  for (const [, target] of prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)) {
    if (/^[a-z][a-z+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
    const [file, anchor] = target!.split('#') as [string, string | undefined];
    const resolved = file === '' ? page : path.posix.normalize(path.posix.join(path.posix.dirname(page), file));
    const text = read(resolved);
    if (text === undefined) broken.push(`${page}: ${target} (no file ${resolved})`);
    else if (anchor !== undefined && !anchorsOf(text).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${resolved})`);
  }
  return broken;
}

/** One command line of a fenced block, split at `&&`, `|` and `;`, its comment dropped. */
function commandsOf(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```(?:sh|bash|shell)?\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
  return blocks
    .flatMap((b) => b.split('\n'))
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter(Boolean)
    .flatMap((line) => line.split(/&&|\|\||[|;]/).map((s) => s.trim()))
    .filter(Boolean);
}

/** Why a command of the README names nothing real, or undefined when it does. */
export function unknownCommand(command: string, program: Command, scripts: Record<string, string>, exists: (file: string) => boolean): string | undefined {
  const words = command.split(/\s+/).filter((w) => !/^[A-Z_]+=/.test(w));
  const [head, ...rest] = words;
  if (head === 'npm' && (rest[0] === 'ci' || rest[0] === 'link')) return undefined;
  if (head === 'npm' && (rest[0] === 'start' || rest[0] === 'test')) return scripts[rest[0]] ? undefined : `npm ${rest[0]}: no such script`;
  if (head === 'npm' && rest[0] === 'run') {
    const script = rest[1] === '-s' ? rest[2] : rest[1];
    if (!script || !scripts[script]) return `npm run ${script}: no such script in package.json`;
    if (script !== 'harness') return undefined;
    const dashes = rest.indexOf('--');
    return dashes < 0 ? undefined : unknownHarness(rest.slice(dashes + 1), program);
  }
  if (head === 'harness') return unknownHarness(rest, program);
  if (head === 'npx' && rest[0] === 'tsx') return exists(rest[1]!) ? undefined : `${rest[1]}: no such file`;
  if (head!.startsWith('./') || head!.startsWith('.ci/') || head!.startsWith('scripts/')) return exists(head!) ? undefined : `${head}: no such file`;
  return `${head}: not a harness subcommand, npm script or file of this repository`;
}

/** A harness command line: each word a subcommand of the one before until the arguments, each --flag one it declares. */
function unknownHarness(args: string[], program: Command): string | undefined {
  let cmd = program;
  let i = 0;
  for (; i < args.length && cmd.commands.length > 0 && !args[i]!.startsWith('-'); i++) {
    const next = cmd.commands.find((c) => c.name() === args[i] || c.aliases().includes(args[i]!));
    if (!next) return `harness ${args.slice(0, i + 1).join(' ')}: no such subcommand`;
    cmd = next;
  }
  for (const flag of args.slice(i).filter((a) => a.startsWith('--'))) {
    const name = flag.split('=')[0]!;
    if (!cmd.options.some((o) => o.long === name) && name !== '--help') return `harness ${cmd.name()} ${name}: no such option`;
  }
  return undefined;
}

const read = (file: string): string | undefined => {
  const full = path.join(ROOT, file);
  return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
};

describe('the manual (README.md and docs/)', () => {
  it('has a README of at most 250 lines', () => {
    expect(read('README.md')!.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('has every relative link resolving, file and anchor', () => {
    expect(PAGES.length).toBeGreaterThan(10);
    expect(PAGES.flatMap((page) => brokenLinks(page, read(page)!, read))).toEqual([]);
  });

  it('names only real subcommands, options, scripts and files in the README\'s fenced blocks', async () => {
    const program = await buildProgram(bufferIo());
    const scripts = (JSON.parse(read('package.json')!) as { scripts: Record<string, string> }).scripts;
    const commands = commandsOf(read('README.md')!);
    expect(commands.length).toBeGreaterThan(10);
    expect(commands.map((c) => unknownCommand(c, program, scripts, (f) => existsSync(path.join(ROOT, f)))).filter(Boolean)).toEqual([]);
  });

  it('catches a planted broken link, a missing anchor and a command that does not exist', async () => {
    const program = await buildProgram(bufferIo());
    const page = [
      '# Title',
      '## A `code` heading: yes',
      'See [ok](#a-code-heading-yes), [missing file](docs/nowhere.md), [bad anchor](docs/getting-started.md#no-such-heading), [web](https://example.com).',
      '```sh',
      'npm run harness -- plan manifests/smoke.yaml   # fine',
      'npm run harness -- plann manifests/smoke.yaml',
      'npm run harness -- record manifests/smoke.yaml --depthz 1',
      'npm run nosuchscript',
      'frobnicate --all',
      '```',
    ].join('\n');
    expect(brokenLinks('README.md', page, (f) => (f === 'README.md' ? page : read(f)))).toMatchInlineSnapshot(`
      [
        "README.md: docs/nowhere.md (no file docs/nowhere.md)",
        "README.md: docs/getting-started.md#no-such-heading (no heading #no-such-heading in docs/getting-started.md)",
      ]
    `);
    const scripts = { harness: 'tsx harness/cli.ts' };
    expect(commandsOf(page).map((c) => unknownCommand(c, program, scripts, () => false))).toMatchInlineSnapshot(`
      [
        undefined,
        "harness plann: no such subcommand",
        "harness record --depthz: no such option",
        "npm run nosuchscript: no such script in package.json",
        "frobnicate: not a harness subcommand, npm script or file of this repository",
      ]
    `);
  });
});
