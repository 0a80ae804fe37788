import { LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';

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
  if (code === 'DUPLICATE_KEY') return 'each field may appear once; remove or rename one of them';
  if (code === 'MISSING_CHAR') return 'close the quote or bracket opened before this point';
  if (code === 'TAB_AS_INDENT') return 'indent with spaces, never tabs';
  return 'check the indentation and that every field is written `name: value` (a missing space after ":" or an unclosed quote are the usual causes)';
}

/** Parses YAML text. Syntax errors come back as data, one per problem, each with its line. */
export function parseYaml(text: string): YamlParse {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // The parser often reports a cascade from one mistake on the same line; one line per problem.
    const seen = new Set<number>();
    const problems: YamlSyntaxProblem[] = [];
    for (const error of doc.errors) {
      const { line, col } = lineCounter.linePos(error.pos[0]);
      if (seen.has(line)) continue;
      seen.add(line);
      problems.push({ line, column: col, text: `YAML syntax error: ${error.message.split('\n')[0]}; ${fixFor(error.code)}` });
    }
    return { ok: false, problems };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [{ line: 1, column: 1, text: `YAML could not be read: ${(error as Error).message}; remove the aliases that expand it` }] };
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
