import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DECODE_PASSES, formatOf, scanViews } from '../../site/scripts/scan-views.js';
import { SecretScanner, distinctFromText, knownKeys, type SecretFinding } from '../../site/scripts/secret-scan.js';
import { KEEP } from '../../site/scripts/long-literals.js';
import { writeRunFixture } from '../support/run-fixture.js';
import { PLACEMENTS, PUBLISHED, lineOf, payloadFor } from './secret-plants.js';
import { SAMPLES, pieces } from './secret-samples.js';

/**
 * The publish-time scan through its public entry (SecretScanner.scan, as make_site calls it):
 * every class of the catalogue planted in a valid run file of each published kind, in a
 * message or string field, as plain text, right after an escaped newline and an escaped tab,
 * and double-encoded (JSON inside a JSON string; an entity inside an entity). Each must be
 * found on the line it was planted on and named by its class.
 */

const REPO = path.resolve(import.meta.dirname, '..', '..');
const scanner = new SecretScanner([]);
let tmp: string;
const originals = new Map<string, string>();

beforeAll(async () => {
  tmp = await mkdtemp(path.join(tmpdir(), 'rdh-secret-scan-'));
  await writeRunFixture(path.join(tmp, 'run'));
  for (const p of PUBLISHED) originals.set(p.kind, await readFile(path.join(tmp, 'run', p.file), 'utf8'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the publish-time scan finds every class in every published kind of file, wherever the token stands', () => {
  for (const published of PUBLISHED) {
    describe(published.kind, () => {
      for (const sample of SAMPLES) {
        it(sample.name, () => {
          for (const placement of PLACEMENTS) {
            const payload = payloadFor(published, placement, sample);
            const text = published.plant(originals.get(published.kind)!, payload);
            published.validate(text);
            const findings = scanner.scan(text, formatOf(published.file));
            expect(findings, `${placement.name}: ${JSON.stringify(findings)}`).toContainEqual(expect.objectContaining({ kind: sample.kind, line: lineOf(text, sample.secret) }));
            // Where and what kind, never what: no field of a finding holds any of the value.
            for (const piece of pieces(sample.secret)) expect(JSON.stringify(findings)).not.toContain(piece);
          }
        });
      }
    });
  }

  it('finds nothing in the unplanted files (the negative control of every case above)', () => {
    for (const published of PUBLISHED) expect(scanner.scan(originals.get(published.kind)!, formatOf(published.file)), published.kind).toEqual([]);
  });
});

describe('the decoded views', () => {
  const token = SAMPLES[1]!.secret;

  it('keep every line where it was: a token after decoded line breaks is reported on its own line of the file', () => {
    const lines = ['{"a": 1}', `{"m": "one\\ntwo\\r\\nthree\\u000a${token}"}`, '{"b": 2}', `{"m": "x\\\\n${token}"}`];
    expect(scanner.scan(lines.join('\n'), 'json').map((f) => [f.line, f.kind, f.decoded])).toEqual([
      [2, 'openai_key', true],
      [4, 'openai_key', true],
    ]);
  });

  it('decode every JSON escape: after \\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t and \\uXXXX a token is seen', () => {
    for (const escape of ['\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t', '\\u0009']) {
      expect(scanner.scan(`{"m": "word${escape}${token}"}`, 'json').map((f) => f.kind), escape).toEqual(['openai_key']);
    }
  });

  it('decode text encoded three times over, and stop after a bounded number of passes on a crafted file', () => {
    const thrice = JSON.stringify({ c: JSON.stringify({ b: JSON.stringify({ a: `line\n${token}` }) }) });
    expect(scanner.scan(thrice, 'json').map((f) => f.kind)).toEqual(['openai_key']);
    // 2^12 backslashes halve on each pass, which would take 12 passes to end: the views stop at the bound.
    const crafted = `${'\\'.repeat(4096)}n${token}`;
    expect(scanViews(crafted, 'json')).toHaveLength(MAX_DECODE_PASSES + 1);
    expect(scanner.scan(crafted, 'json')).toEqual([]);
  });

  it('read a CSV field with its doubled quotes as the quote it stands for', () => {
    const secret = SAMPLES[12]!.secret;
    const csv = `cell,note\ncap1-rep1-gated,"db_password=""${secret}"""\n`;
    expect(scanner.scan(csv, 'csv').map((f) => [f.line, f.kind])).toEqual([[2, 'generic_secret']]);
  });

  it('decode percent-escapes and lenient HTML references, where a token hides behind a letter or digit as written', () => {
    expect(scanner.scan(`<a href="/q?text=key%20${token}">x</a>`, 'html').map((f) => f.kind)).toEqual(['openai_key']);
    expect(scanner.scan(`<p>&#115${token.slice(1)}</p>`, 'html').map((f) => f.kind)).toEqual(['openai_key']);
    expect(scanner.scan(`<p>&#x73;${token.slice(1)}</p>`, 'xml').map((f) => f.kind)).toEqual(['openai_key']);
  });

  it('find a configured value that holds a backslash, seen whole only in a middle pass', () => {
    const key = 'gw-\\b-' + 'k3yV4lue9Q';
    const keyed = new SecretScanner([{ name: 'GATEWAY_API_KEY', value: key }]);
    // JSON-encoded once: `\\b` in the file; decoded once it is the key; decoded twice `\b` is gone.
    expect(keyed.scan(JSON.stringify({ m: key }), 'json')).toEqual([{ line: 1, kind: 'known_value', variable: 'GATEWAY_API_KEY', decoded: true }]);
  });
});

describe('long JSON literals, scanned once each (long-literals.ts)', () => {
  // Prose around a planted payload makes a literal long enough to be cut out and scanned on its own.
  const WORDS = 'the parser reads one row at a time and keeps the header apart from the data rows while it counts columns'.split(' ');
  const prose = (n: number, seed: number) => {
    let out = '';
    for (let i = 0; out.length < n; i++) out += `${WORDS[(i * 7 + seed) % WORDS.length]} `;
    return out.slice(0, n);
  };
  const sameOrMore = (cut: SecretFinding[], whole: SecretFinding[]) => {
    const seen = new Set(cut.map((f) => `${f.line}:${f.kind}:${f.variable ?? ''}`));
    return whole.filter((f) => !seen.has(`${f.line}:${f.kind}:${f.variable ?? ''}`));
  };

  it('find every class at the start, the middle and the end of a long literal, and across each kept edge, on its line', () => {
    const jsonKinds = PUBLISHED.filter((p) => !p.xml);
    // Offsets from the literal's start: 0, across the kept head's end, the middle, across the kept tail's start, the end.
    const before = [0, KEEP - 8, 1500, 3000 - KEEP - 4, 3000];
    for (const published of jsonKinds) {
      for (const sample of SAMPLES) {
        for (const placement of PLACEMENTS) {
          for (const at of before) {
            const payload = `${prose(at, at)} ${placement.json(sample)} ${prose(3000 - at, at + 1)}`;
            const text = published.plant(originals.get(published.kind)!, payload);
            const found = scanner.scan(text, 'json');
            const where = `${published.kind}, ${sample.name}, ${placement.name}, at ${at}`;
            expect(found, where).toContainEqual(expect.objectContaining({ kind: sample.kind, line: lineOf(text, sample.secret) }));
            expect(sameOrMore(found, scanner.scanWhole(text, 'json')), where).toEqual([]);
          }
        }
      }
    }
  });

  it('report a literal met again (the same text, scanned once) on every line that holds it', () => {
    const sample = SAMPLES[1]!;
    const literal = JSON.stringify({ content: `${prose(2000, 1)} ${sample.text} ${prose(2000, 2)}` });
    const text = [literal, '{"other":"line"}', literal].join('\n');
    expect(scanner.scan(text, 'json').map((f) => [f.line, f.kind])).toEqual([[1, sample.kind], [3, sample.kind]]);
    // A fresh scanner met it already in another file: the line is still this file's.
    const again = new SecretScanner([]);
    again.scan(literal, 'json');
    expect(again.scan(`{"a":1}\n{"b":2}\n${literal}`, 'json').map((f) => f.line)).toEqual([3]);
  });

  it('see a JSON key with the start of its long value, and a configured value inside one', () => {
    const value = `${'Q7vR2mXk9LpT4wZs8NcB'}${prose(3000, 3)}`;
    expect(scanner.scan(`{"n":1}\n{"api_token": "${value}"}`, 'json')).toEqual([{ line: 2, kind: 'generic_secret', variable: null, decoded: false }]);
    const key = 'gw-\\b-' + 'k3yV4lue9Q';
    const keyed = new SecretScanner([{ name: 'GATEWAY_API_KEY', value: key }]);
    expect(keyed.scan(JSON.stringify({ m: `${prose(2000, 4)}${key}${prose(2000, 5)}` }), 'json')).toEqual([{ line: 1, kind: 'known_value', variable: 'GATEWAY_API_KEY', decoded: true }]);
  });

  it('join nothing across the part left out: a name where the kept head ends and a value where the kept tail starts are no assignment', () => {
    const name = 'db_password';
    const value = '= Q7vR2mXk9LpT4wZs8NcB';
    // The literal as written: `"` + head + middle + tail + `"`, cut so the kept head ends with the name and the kept tail starts with the value.
    const head = `${prose(KEEP - 1 - name.length, 6)}${name}`;
    const tail = `${value}${prose(KEEP - 1 - value.length, 7)}`;
    const text = JSON.stringify({ m: `${head} ${prose(3000, 8)} ${tail}` });
    expect(scanner.scanWhole(text, 'json')).toEqual([]);
    expect(scanner.scan(text, 'json')).toEqual([]);
  });

  it('find what the whole text shows on generated transcripts: every sample, escaped at random, at a random place among long literals (seeded)', () => {
    let x = 20261206;
    const next = (n: number) => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % n;
    for (let trial = 0; trial < 120; trial++) {
      const sample = SAMPLES[next(SAMPLES.length)]!;
      const placement = PLACEMENTS[next(PLACEMENTS.length)]!;
      const lines = Array.from({ length: 2 + next(4) }, (_, i) => JSON.stringify({ type: 'request', added: [{ role: 'user', content: prose(200 + next(3000), i) }, { role: 'tool', content: prose(next(2500), i + 9) }] }));
      const at = next(lines.length);
      const record = JSON.parse(lines[at]!);
      const content: string = record.added[0].content;
      const cut = next(content.length);
      record.added[0].content = `${content.slice(0, cut)} ${placement.json(sample)} ${content.slice(cut)}`;
      lines[at] = JSON.stringify(record);
      const text = lines.join('\n');
      const found = scanner.scan(text, 'json');
      const where = `trial ${trial}: ${sample.name}, ${placement.name}, line ${at + 1}, at ${cut}`;
      expect(found, where).toContainEqual(expect.objectContaining({ kind: sample.kind, line: at + 1 }));
      expect(sameOrMore(found, scanner.scanWhole(text, 'json')), where).toEqual([]);
    }
  });
});

describe('file paths', () => {
  it('a path that holds a token, as written or percent-encoded, is found and never echoed', () => {
    const secret = SAMPLES[5]!.secret;
    const encoded = secret.replace(/_/g, '%5F');
    for (const name of [`cells/cap1-rep1-gated/transcripts/${secret}.jsonl`, `runs/${encoded}/index.html`]) {
      expect(scanner.scanName(name), name.slice(0, 12)).toEqual(['github_token']);
      const printed = scanner.redactPaths(`make_site: not published: ${name}, other.txt`);
      expect(printed).toContain('[REDACTED github_token]');
      expect(printed).toContain('other.txt');
      for (const piece of pieces(secret)) expect(printed).not.toContain(piece);
      for (const piece of pieces(encoded)) expect(printed).not.toContain(piece);
    }
    expect(scanner.scanName('cells/cap1-rep1-gated/transcripts/root.1%2Fworker%2F1.jsonl')).toEqual([]);
  });
});

describe('the negative controls', () => {
  it('the committed example run and the fixture run scan clean, every file of them', async () => {
    for (const root of [path.join(REPO, 'runs', 'example-sim'), path.join(tmp, 'run')]) {
      const files = (await readdir(root, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
      expect(files.length).toBeGreaterThan(40);
      for (const e of files) {
        const file = path.join(e.parentPath, e.name);
        const rel = path.relative(root, file);
        expect(scanner.scan(await readFile(file, 'utf8'), formatOf(rel)), rel).toEqual([]);
        expect(scanner.scanName(rel), rel).toEqual([]);
      }
    }
  });
});

describe('configured values that cannot be told from text', () => {
  it('are not searched for, and named: shorter than 8 characters or one plain word; every other value is searched for', async () => {
    const env = { A_API_KEY: 'anything', B_API_KEY: 'ollama', C_API_KEY: 'Local', D_API_KEY: 'anything1', E_API_KEY: 'sk-local', F_API_KEY: 'aBcDeFgHiJ' };
    const known = await knownKeys([], env);
    expect(known.tooShort).toEqual(['A_API_KEY', 'B_API_KEY', 'C_API_KEY']);
    expect(known.keys.map((k) => k.name)).toEqual(['D_API_KEY', 'E_API_KEY', 'F_API_KEY']);
    expect(['anything', 'ollama', 'Local', 'OLLAMA'].map(distinctFromText)).toEqual([false, false, false, false]);
  });
});
