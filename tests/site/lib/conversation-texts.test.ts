import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Block } from '../../../site/src/lib/conversation.js';
import { PACK_CHARS, SessionPacker, blockAnchor, hasPage, partAnchor, roleOf, sessionAnchor } from '../../../site/src/lib/session-pages.js';
import { TranscriptArchive } from '../../../site/src/lib/transcript-bundle.js';
import { STORE_CHARS, SYSTEM_STORE_CHARS, TextStore, chunks, collapse, countSections, sections, storeLongTexts, textKey } from '../../../site/src/lib/transcript-texts.js';
import { sessionUrl, sessionsUrl } from '../../../site/src/lib/urls.js';
import { archiveFiles } from '../checks/transcripts.js';

const message = (role: 'system' | 'user' | 'tool', text: string, n = 1): Block => ({ kind: 'message', call: 1, anchor: `m${n}`, role, body: [{ kind: 'text', text }], answers: null });
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

describe('collapse', () => {
  it('keeps a short text whole', () => {
    expect(collapse('a\nb', 100, 5)).toBeNull();
  });

  it('cuts after the last whole line within the limits, so the head ends at a line boundary', () => {
    const text = Array.from({ length: 30 }, (_, i) => `line ${i} ${'x'.repeat(50)}`).join('\n');
    const cut = collapse(text, 1200, 20)!;
    expect(cut.head.endsWith('\n')).toBe(true);
    expect(cut.head.split('\n').length - 1).toBe(20);
    expect(cut.head + cut.rest).toBe(text);
  });

  it('cuts a first line longer than the limit at a space, never inside a word', () => {
    const text = words(400);
    const cut = collapse(text, 1200, 20)!;
    expect(cut.head.length).toBeLessThanOrEqual(1201);
    expect(cut.head.endsWith(' ')).toBe(true);
    expect(cut.rest).toMatch(/^word\d+ /);
    expect(cut.head + cut.rest).toBe(text);
  });

  it('shows no head for a first line with no space in it (a long token), rather than cut it', () => {
    const text = 'x'.repeat(5000);
    expect(collapse(text, 1200, 20)).toEqual({ head: '', rest: text });
  });
});

describe('long texts stored once', () => {
  const objective = `## Objective\n${words(300)}\n## 1. Part one\n${words(300)}\n## 2. Part two\n${words(300)}\n`;
  const prompt = (goal: string, checks: string) => `## Goal\n${goal}\n${objective}## Checks\n${checks}\n`;

  it('cuts a text before each top-level heading and nowhere else', () => {
    expect(sections('intro\n## A\na\n### sub\ns\n# B\nb')).toEqual(['intro\n', '## A\na\n### sub\ns\n', '# B\nb']);
  });

  it('cuts the objective two prompts share into one chunk, the same text in both, apart from what each says alone', () => {
    const a = prompt('build the lexer', words(10));
    const b = prompt('build the parser', words(20));
    const counts = countSections([a, b]);
    const ca = chunks(a, counts);
    const cb = chunks(b, counts);
    expect(ca).toHaveLength(3);
    expect(ca[1]).toBe(objective);
    expect(cb[1]).toBe(objective);
    expect(ca.join('')).toBe(a);
  });

  it('stores a long text once however many blocks show it, and links it in their place', () => {
    const told: string[] = [];
    const store = new TextStore((key) => told.push(key));
    const long = `${words(600)}\n`;
    const out = storeLongTexts([message('tool', long, 1), message('tool', long, 2), message('user', 'short', 3)], store);
    expect(told).toEqual([textKey(long)]);
    for (const b of out.slice(0, 2)) {
      expect(b.kind === 'message' && b.body).toEqual([{ kind: 'stored', key: textKey(long), head: collapse(long, 160, 2)!.head, chars: long.length, lines: 2 }]);
    }
    expect(out[2]!.kind === 'message' && out[2]!.body).toEqual([{ kind: 'text', text: 'short' }]);
  });

  it('keeps a text up to STORE_CHARS on the page, and stores a system message over SYSTEM_STORE_CHARS', () => {
    const told: string[] = [];
    const store = new TextStore((key) => told.push(key));
    const page = 'y '.repeat(STORE_CHARS / 2);
    const system = 'z '.repeat(SYSTEM_STORE_CHARS);
    const out = storeLongTexts([message('user', page), message('system', system)], store);
    expect(out[0]!.kind === 'message' && out[0]!.body[0]!.kind).toBe('text');
    expect(out[1]!.kind === 'message' && out[1]!.body[0]!.kind).toBe('stored');
    expect(told).toEqual([textKey(system)]);
  });
});

describe('a run\'s transcripts download', () => {
  it('holds every file byte for byte under its path, in a Brotli-compressed tar', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-archive-')), 'transcripts.tar.br');
    const archive = await TranscriptArchive.create(file);
    const long = `cells/cap1-rep1-gated/transcripts/${'root.1.1.1.1.1.1'.repeat(8)}%2Fworker%2F1.jsonl`;
    await archive.add('cells/cap1-rep1-gated/transcripts/a.jsonl', '{"a":1}\n{"a":"é"}\n');
    await archive.add(long, '{"b":1');
    expect(await archive.close()).toBe(2);
    expect(await archiveFiles(await readFile(file))).toEqual({ 'cells/cap1-rep1-gated/transcripts/a.jsonl': '{"a":1}\n{"a":"é"}\n', [long]: '{"b":1' });
  });

  it('holds a run larger than the chunks it is compressed in, every file whole and in order', async () => {
    const file = path.join(await mkdtemp(path.join(tmpdir(), 'rdh-archive-')), 'transcripts.tar.br');
    const archive = await TranscriptArchive.create(file);
    // Hard to compress, of uneven sizes, 5 MB in all: several of the compressor's 1 MB chunks, each file's bytes split across them.
    const files = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`cells/c/transcripts/s${i}.jsonl`, randomBytes(20_000 + i * 4_000).toString('hex')]));
    for (const [name, text] of Object.entries(files)) await archive.add(name, text);
    expect(await archive.close()).toBe(40);
    const read = await archiveFiles(await readFile(file));
    expect(Object.keys(read)).toEqual(Object.keys(files));
    expect(Object.entries(read).every(([name, text]) => text === files[name])).toBe(true);
  });
});

describe('which sessions have pages, where they are placed, and sessionUrl', () => {
  it('gives the judgements pages and links every session to the start of its transcript on its sessions page, or to its row on the first', () => {
    expect(roleOf('gated/root/reviewer/2')).toBe('reviewer');
    expect(['root.1/verifier/1', 'gated/root/reviewer/1', 'ungated/root/self_reviewer/2'].map(hasPage)).toEqual([true, true, true]);
    expect(['root/planner/1', 'root.1/worker/1', 'root.1/drift_judge/3', 'root.1/checker/1', 'gated/root/merger/1'].map(hasPage)).toEqual([false, false, false, false, false]);
    expect(sessionUrl('r', 'cap1-rep1-gated', 'root.1/verifier/1', 1)).toBe('/runs/r/cells/cap1-rep1-gated/sessions/#session-root.1/verifier/1');
    expect(sessionUrl('r', 'cap1-rep1-gated', 'root.1/verifier/1', 3)).toBe('/runs/r/cells/cap1-rep1-gated/sessions/~page-3/#session-root.1/verifier/1');
    expect(sessionUrl('r', 'cap1-rep1-gated', 'root.1/checker/1', 0)).toBe(`${sessionsUrl('r', 'cap1-rep1-gated')}#${sessionAnchor('root.1/checker/1')}`);
    expect(sessionsUrl('r', 'c', 1)).toBe('/runs/r/cells/c/sessions/');
  });

  it('fills a sessions page up to PACK_CHARS, moves the next page of text to the next one, and numbers only the placed sessions', () => {
    const packer = new SessionPacker();
    const half = PACK_CHARS / 2;
    expect(packer.place([half, half])).toEqual({ packs: [1, 1], ordinal: 1 });
    // No pages: nothing placed, no number taken.
    expect(packer.place([])).toEqual({ packs: [], ordinal: 0 });
    // One character more than fits starts page 2; a session's own pages follow one another across the break.
    expect(packer.place([1, PACK_CHARS, 1])).toEqual({ packs: [2, 3, 4], ordinal: 2 });
    // A page larger than the budget still goes somewhere: alone, after the page it would overfill.
    expect(packer.place([PACK_CHARS * 3])).toEqual({ packs: [5], ordinal: 3 });
    expect(packer.place([10])).toEqual({ packs: [6], ordinal: 4 });
    expect([blockAnchor(4, 'm12'), partAnchor('root/reviewer/1', 4, 1), partAnchor('root/reviewer/1', 4, 2)]).toEqual(['s4-m12', 'session-root/reviewer/1', 's4-page-2']);
  });
});
