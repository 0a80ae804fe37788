import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { RdhError } from '../../engine/index.js';
import { REPO_ROOT } from '../paths.js';
import type { BriefSource } from './task-definition.js';

/**
 * A document a task's brief carries beside SPEC.md, read from a pinned npm package at run time
 * (so nothing of it is copied into this tree), cut to the sections the task names, with every
 * example removed when the task is graded by those examples, and with its licence notice
 * attached. Generic: the task's task.yaml says which package, file and sections.
 */

/** Spelled `spec_invalid` so the CLI ends with the usage exit: a task declaration is bad input. */
export class BriefSourceError extends RdhError {
  readonly code = 'spec_invalid';
}

const PackageJson = z.object({ name: z.string(), version: z.string() });

/** Where node_modules is looked for. Default: the repository's root. */
export interface PinnedPackageOptions {
  root?: string;
}

/** The installed folder of `source.package`, refused unless its package.json says `source.version`. */
export async function pinnedPackageDir(source: Pick<BriefSource, 'package' | 'version'>, options: PinnedPackageOptions = {}): Promise<string> {
  if (!/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/.test(source.package)) throw new BriefSourceError(`package: "${source.package}" is not an npm package name`);
  const dir = path.join(options.root ?? REPO_ROOT, 'node_modules', source.package);
  const text = await readFile(path.join(dir, 'package.json'), 'utf8').catch(() => undefined);
  if (text === undefined) throw new BriefSourceError(`package: "${source.package}" is not installed (no node_modules/${source.package}/package.json); run npm ci`);
  const parsed = PackageJson.safeParse(JSON.parse(text));
  if (!parsed.success) throw new BriefSourceError(`package: node_modules/${source.package}/package.json has no name and version`);
  if (parsed.data.version !== source.version) {
    throw new BriefSourceError(`version: "${source.version}" is pinned but node_modules/${source.package} is ${parsed.data.version}; run npm ci (or pin the new version and review what it changes)`);
  }
  return dir;
}

/** Reads `source.file` of the pinned package, with line endings normalised to \n. */
export async function readPinnedFile(source: Pick<BriefSource, 'package' | 'version' | 'file'>, options: PinnedPackageOptions = {}): Promise<string> {
  const dir = await pinnedPackageDir(source, options);
  const file = path.join(dir, source.file);
  if (path.relative(dir, file).startsWith('..')) throw new BriefSourceError(`file: "${source.file}" is outside the package`);
  const text = await readFile(file, 'utf8').catch(() => undefined);
  if (text === undefined) throw new BriefSourceError(`file: "${source.file}" is not in node_modules/${source.package}`);
  return text.replace(/\r\n?/g, '\n');
}

/**
 * An example block, as the specs read here write them (and their own test tools extract them):
 * a fence of exactly 32 backticks with the word `example`, holding the input, a line `.`, the
 * expected output, then the closing fence. A task whose package writes examples otherwise
 * needs this extended before it can say strip_examples: true.
 */
const EXAMPLE_OPEN = /^`{32} example\b/;
const EXAMPLE_CLOSE = /^`{32}$/;
const HEADING = /^(#{1,6})[ \t]+(.*?)[ \t]*$/;

/** Lines with every example block (fences, input and output) removed; an unclosed one is refused. */
export function stripExamples(lines: string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!EXAMPLE_OPEN.test(lines[i]!)) {
      kept.push(lines[i]!);
      continue;
    }
    const close = lines.findIndex((l, j) => j > i && EXAMPLE_CLOSE.test(l));
    if (close < 0) throw new BriefSourceError(`strip_examples: an example opened at line ${i + 1} never closes; the text cannot be shown to hold no example`);
    i = close;
  }
  return kept;
}

/**
 * Keeps the sections whose heading text is one of `sections` (each with its subsections: it runs
 * to the next heading of its level or higher). Headings are looked for outside example blocks
 * and code fences only, since examples hold lines that look like headings. A section named but
 * absent is refused, naming it.
 */
export function keepSections(lines: string[], sections: string[]): string[] {
  const headings: { line: number; level: number; text: string }[] = [];
  let fence: string | undefined;
  lines.forEach((line, i) => {
    const f = /^(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (f !== undefined && f[0] === fence[0] && f.length >= fence.length && line.trim() === f) fence = undefined;
      return;
    }
    if (f !== undefined) return void (fence = f);
    const h = HEADING.exec(line);
    if (h) headings.push({ line: i, level: h[1]!.length, text: h[2]! });
  });
  const missing = sections.filter((s) => !headings.some((h) => h.text === s));
  if (missing.length) throw new BriefSourceError(`sections: ${missing.map((s) => `"${s}"`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not a heading of the file`);
  const keep = new Array<boolean>(lines.length).fill(false);
  headings.forEach((h, k) => {
    if (!sections.includes(h.text)) return;
    const end = headings.slice(k + 1).find((next) => next.level <= h.level)?.line ?? lines.length;
    for (let i = h.line; i < end; i++) keep[i] = true;
  });
  return lines.filter((_, i) => keep[i]);
}

/** The licence notice printed with the text, in the brief and in every published transcript. */
export function licenceNotice(source: BriefSource): string {
  return `${source.attribution} Licence: ${source.licence}. Sections carried: ${source.sections.join('; ')}${source.strip_examples ? ', with every example removed' : ''}.`;
}

/** One brief source, ready for a brief: the kept sections, the notice above and below them. */
export async function renderBriefSource(source: BriefSource, options: PinnedPackageOptions = {}): Promise<string> {
  const lines = (await readPinnedFile(source, options)).split('\n');
  // Examples go first, on the whole file: an example's lines never count as a section's heading.
  const body = keepSections(source.strip_examples ? stripExamples(lines) : lines, source.sections);
  const text = body.join('\n').replace(/\n{3,}/g, '\n\n').trim();
  const notice = licenceNotice(source);
  return `<!-- ${source.package} ${source.version} ${source.file} -->\n${notice}\n\n${text}\n\n${notice}\n`;
}
