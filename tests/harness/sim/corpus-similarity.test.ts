import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../harness/index.js';
import { CORPORA_DIR } from '../../../harness/testing.js';

const WINDOW = 5;

/** Non-blank lines with every run of whitespace made one space, each with its 1-based line number. */
function normalised(text: string): { line: number; text: string }[] {
  return text
    .split(/\r?\n/)
    .map((raw, i) => ({ line: i + 1, text: raw.replace(/\s+/g, ' ').trim() }))
    .filter((l) => l.text !== '');
}

function windows(text: string): { line: number; key: string }[] {
  const lines = normalised(text);
  const out: { line: number; key: string }[] = [];
  for (let i = 0; i + WINDOW <= lines.length; i++) out.push({ line: lines[i]!.line, key: lines.slice(i, i + WINDOW).map((l) => l.text).join('\n') });
  return out;
}

/** Windows of `WINDOW` consecutive non-blank lines of `ours` that also occur in `theirs`. */
export function sharedWindows(ours: Record<string, string>, theirs: Record<string, string>): string[] {
  const seen = new Map<string, string>();
  for (const [file, text] of Object.entries(theirs)) for (const w of windows(text)) if (!seen.has(w.key)) seen.set(w.key, `${file}:${w.line}`);
  const shared: string[] = [];
  for (const [file, text] of Object.entries(ours)) {
    for (const w of windows(text)) {
      const where = seen.get(w.key);
      if (where) shared.push(`${file}:${w.line} = ${where}`);
    }
  }
  return shared;
}

async function textFiles(dir: string): Promise<Record<string, string>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const out: Record<string, string> = {};
  for (const e of entries) {
    const full = path.join(e.parentPath, e.name);
    if (!e.isFile() || full.includes(`${path.sep}__pycache__${path.sep}`)) continue;
    const bytes = await readFile(full);
    if (!bytes.includes(0)) out[path.relative(REPO_ROOT, full)] = bytes.toString('utf8');
  }
  return out;
}

describe('every task\'s sim corpus is its own work', () => {
  it('shares no window of 5 consecutive non-blank lines with anything under oracle/', async () => {
    const corpus = await textFiles(CORPORA_DIR);
    const oracle = await textFiles(path.join(REPO_ROOT, 'oracle'));
    expect(Object.keys(corpus).length).toBeGreaterThan(40);
    expect(Object.keys(oracle).length).toBeGreaterThan(3);
    expect(sharedWindows(corpus, oracle)).toEqual([]);
  });

  it('would catch a copied window, whatever its indentation and blank lines', () => {
    const theirs = { 'oracle/x/ref.py': 'def f(a):\n    b = a\n    c = b\n\n    d = c\n    return d\n' };
    const ours = { 'corpus/y.py': 'x = 1\ndef  f(a):\n  b = a\n\n  c = b\n  d = c\n  return d\n' };
    expect(sharedWindows(ours, theirs)).toEqual(['corpus/y.py:2 = oracle/x/ref.py:1']);
    expect(sharedWindows({ 'corpus/y.py': 'def f(a):\n    b = a\n    c = b\n    d = c\n    return e\n' }, theirs)).toEqual([]);
  });
});
