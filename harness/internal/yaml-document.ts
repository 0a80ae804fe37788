import { LineCounter, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import { looksLikeSecret, redactSecrets } from './secret-shape.js';

export type YamlPath = ReadonlyArray<PropertyKey>;

/** A parsed YAML file that can still say which line a field came from. */
export interface YamlSource {
  readonly data: unknown;
  /**
   * 1-based line of the field at `path`, or of its nearest ancestor that exists (a missing
   * field points at the mapping it is missing from). Undefined for an empty document.
   */
  lineOf(path: YamlPath): number | undefined;
}

/** A YAML syntax error, already phrased for a person. */
export interface YamlSyntaxProblem {
  line: number;
  column: number;
  text: string;
}

export type YamlParse = { ok: true; source: YamlSource } | { ok: false; problems: YamlSyntaxProblem[] };

/** Why each syntax error usually happens, so the message can name a fix and not only a symptom. */
function fixFor(code: string): string {
  if (code === 'MISSING_CHAR') return 'close the quote or bracket opened before this point';
  if (code === 'TAB_AS_INDENT') return 'indent with spaces, never tabs';
  if (code === 'TAG_RESOLVE_FAILED' || code === 'BAD_COLLECTION_TYPE') return 'remove the tag (the word after "!"); this file needs none';
  return 'check the indentation and that every field is written `name: value` (a missing space after ":" or an unclosed quote are the usual causes)';
}

/** A parser message in a person's words; the parser's own text may quote the file, so keys are masked. */
function syntaxText(code: string, message: string): string {
  if (code === 'MULTIPLE_DOCS') {
    return 'the file holds more than one YAML document (a line "---" or "..." starts another); a data file is one document: remove the separator and merge or delete what follows it';
  }
  const first = redactSecrets(message.split('\n')[0] ?? '');
  // The parser may quote a tag or an escape from the file whole; a message stays one short line.
  return `YAML syntax error: ${first.length > 160 ? `${first.slice(0, 157)}...` : first}; ${fixFor(code)}`;
}

/** Longest key a message repeats as written. */
const KEY_SHOWN = 40;

/**
 * Keys written twice in one mapping, and keys that are not plain names. Keys are compared as
 * the data sees them, not as spelt: `3:` and `"3":` become one key once read, so the second
 * would silently replace the first. Each problem names both lines.
 */
function keyProblems(doc: Document.Parsed, text: string, lineCounter: LineCounter): YamlSyntaxProblem[] {
  const problems: YamlSyntaxProblem[] = [];
  const place = (node: Node) => lineCounter.linePos(node.range?.[0] ?? 0);
  const shownKey = (raw: string): string => {
    if (looksLikeSecret(raw)) return '(a key that looks like an API key; not shown)';
    return raw.length > KEY_SHOWN ? `${raw.slice(0, KEY_SHOWN - 3)}...` : raw;
  };
  const written = (node: Node): string => shownKey(text.slice(node.range?.[0] ?? 0, node.range?.[1] ?? 0).trim());
  const visit = (node: unknown, where: string): void => {
    if (isMap(node)) {
      const seen = new Map<string, Node>();
      for (const pair of node.items) {
        const key = pair.key as Node | null;
        if (key && !isScalar(key)) {
          const { line, col } = place(key);
          problems.push({ line, column: col, text: `${where || '(top level)'}: a key must be a plain name, not ${isAlias(key) ? 'an alias' : 'a list or mapping'}; write the field name out` });
          continue;
        }
        const id = key === null || key.value === null ? '' : String(key.value);
        const path = where ? `${where}.${shownKey(id)}` : shownKey(id);
        const first = key ? seen.get(id) : undefined;
        if (key && first) {
          const { line, col } = place(key);
          const was = written(first);
          const now = written(key);
          const spelt = was === now ? '' : ` (${was} and ${now} are one key once read)`;
          problems.push({ line, column: col, text: `${written(key)} is written twice in ${where || 'the top level'}, on lines ${place(first).line} and ${line}${spelt}; each key may appear once: remove or rename one of them` });
        } else if (key) seen.set(id, key);
        visit(pair.value, path);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => visit(item, `${where}[${i}]`));
    }
  };
  visit(doc.contents, '');
  return problems;
}

/** Parses YAML text. Syntax errors come back as data, one per problem, each with its line. */
export function parseYaml(text: string): YamlParse {
  const lineCounter = new LineCounter();
  // Keys are checked below, by the data's own rule; the library's check compares spellings.
  // logLevel 'error': the library prints nothing itself ('silent' would also drop the
  // error for a second document, and with it everything after the first).
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false, logLevel: 'error' });
  // A warning (an unknown tag) is refused as well: this file is data, and a guess is not data.
  const issues = [...doc.errors, ...doc.warnings];
  if (issues.length > 0) {
    // The parser often reports a cascade from one mistake on the same line; one line per problem.
    const seen = new Set<number>();
    const problems: YamlSyntaxProblem[] = [];
    for (const error of issues) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      if (seen.has(line)) continue;
      seen.add(line);
      problems.push({ line, column: col, text: syntaxText(error.code, error.message) });
    }
    return { ok: false, problems };
  }
  const duplicates = keyProblems(doc, text, lineCounter);
  if (duplicates.length > 0) return { ok: false, problems: duplicates };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [{ line: 1, column: 1, text: `YAML could not be read: ${redactSecrets((error as Error).message)}; remove the aliases that expand it` }] };
  }
  const lineAt = (offset: number | undefined): number | undefined => (offset === undefined ? undefined : lineCounter.linePos(offset).line);
  return {
    ok: true,
    source: {
      data,
      lineOf(path) {
        let node: unknown = doc.contents;
        let line = lineAt((node as Node | null)?.range?.[0]);
        for (const segment of path) {
          if (isMap(node)) {
            const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
            if (!pair) return line;
            // A field's line is where its key is written, which is what a reader looks for.
            line = lineAt((pair.key as Node).range?.[0]) ?? line;
            node = pair.value;
          } else if (isSeq(node) && typeof segment === 'number') {
            const item = node.items[segment] as Node | undefined;
            if (!item) return line;
            line = lineAt(item.range?.[0]) ?? line;
            node = item;
          } else {
            return line;
          }
        }
        return line;
      },
    },
  };
}
