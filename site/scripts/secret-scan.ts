import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { MIN_KNOWN_LENGTH, SecretCatalogue, type SecretKind } from '../../harness/run-files.js';
import { scanViews, type ScanFormat } from './scan-views.js';
import { LONG_LITERAL, cutLongLiterals } from './long-literals.js';

/**
 * The publish-time secret scan: the engine's one catalogue of secret shapes, plus the values
 * of the API keys this machine is configured with. It reports where (file, line, kind), never
 * what: no value, no part of one, not even its length.
 *
 * A file is scanned as written and in each of its decoded views (scan-views.ts: every JSON
 * escape, XML and HTML character references, CSV quotes, percent-escapes, decoded until
 * stable), because the site shows the decoded text. Decoding keeps line breaks where they
 * were, so lines stay true.
 */

export interface KnownKey {
  /** The environment variable holding it (the name is not secret). */
  name: string;
  value: string;
}

export interface SecretFinding {
  line: number;
  kind: SecretKind;
  /** For a known value: which variable's value it is. */
  variable: string | null;
  /** Seen only once the file's escapes were decoded (so a search of the file as written will not find it). */
  decoded: boolean;
}

/** The first finding of each line, kind and variable, in line order (the order met breaks ties). */
function onePerLineAndKind(findings: readonly SecretFinding[]): SecretFinding[] {
  const found = new Map<string, SecretFinding>();
  for (const f of findings) {
    const key = `${f.line}:${f.kind}:${f.variable ?? ''}`;
    if (!found.has(key)) found.set(key, f);
  }
  return [...found.values()].sort((a, b) => a.line - b.line);
}

export class SecretScanner {
  private readonly catalogue: SecretCatalogue;
  private readonly perKey: Array<{ name: string; catalogue: SecretCatalogue }>;

  constructor(readonly keys: readonly KnownKey[]) {
    this.catalogue = new SecretCatalogue(keys.map((k) => k.value));
    this.perKey = keys.map((k) => ({ name: k.name, catalogue: new SecretCatalogue([k.value]) }));
  }

  /** What each distinct long JSON literal holds (by its SHA-256), found once for the whole build. */
  private readonly literals = new Map<string, Array<Omit<SecretFinding, 'line'>>>();

  /**
   * Every secret in `text`, read as `format` and in each of its decoded views, one finding per
   * line and kind, in line order. A JSON text's long string literals are scanned on their own,
   * each distinct one once per scanner (long-literals.ts says why that finds what
   * {@link scanWhole} finds); a finding in one is reported on every line that holds it.
   */
  scan(text: string, format: ScanFormat): SecretFinding[] {
    if (format !== 'json' || text.length < LONG_LITERAL) return this.scanWhole(text, format);
    const { rest, literals } = cutLongLiterals(text);
    if (literals.length === 0) return this.scanWhole(text, format);
    const inLiterals = literals.flatMap((literal) => this.literalFindings(literal.text).map((f) => ({ ...f, line: literal.line })));
    return onePerLineAndKind([...this.scanWhole(rest, format), ...inLiterals]);
  }

  private literalFindings(literal: string): Array<Omit<SecretFinding, 'line'>> {
    const key = createHash('sha256').update(literal).digest('base64');
    let findings = this.literals.get(key);
    if (!findings) {
      findings = this.scanWhole(literal, 'json').map(({ line: _line, ...rest }) => rest);
      this.literals.set(key, findings);
    }
    return findings;
  }

  /** The reference reading: every shape in every decoded view of the whole text. {@link scan} finds at least what this finds. */
  scanWhole(text: string, format: ScanFormat): SecretFinding[] {
    const found: SecretFinding[] = [];
    const views = scanViews(text, format);
    for (const [pass, view] of views.entries()) {
      // Every shape on the text as written and fully decoded: an escape never stands inside a
      // shape's token, so one whole in a middle pass is whole in the last. A configured value
      // can hold any character, so it is looked for in every pass (a cheap search).
      const full = pass === 0 || pass === views.length - 1;
      for (const hit of full ? this.catalogue.find(view) : this.catalogue.findKnown(view)) {
        let variable: string | null = null;
        if (hit.kind === 'known_value') {
          const lineText = view.split('\n')[hit.line - 1] ?? '';
          variable = this.perKey.find((k) => k.catalogue.find(lineText).length > 0)?.name ?? null;
        }
        found.push({ line: hit.line, kind: hit.kind, variable, decoded: pass > 0 });
      }
    }
    return onePerLineAndKind(found);
  }

  /** The kinds of secret a file's path holds (a run or session named after a key would publish it in a URL), decoded as a URL would be. */
  scanName(name: string): SecretKind[] {
    return [...new Set(this.scan(name, 'text').map((f) => f.kind))];
  }

  /**
   * A line safe to print: every secret replaced by its kind, and every path segment (or word)
   * whose decoded form holds one replaced whole, so a file named after a key, even
   * percent-encoded, is never echoed.
   */
  redactPaths(line: string): string {
    const pieces = this.catalogue.redact(line).split(/([\s,/()'"]+)/);
    return pieces
      .map((piece, i) => {
        if (i % 2 === 1 || piece.startsWith('[REDACTED')) return piece;
        const kinds = this.scanName(piece);
        return kinds.length ? `[REDACTED ${kinds.join(', ')}]` : piece;
      })
      .join('');
  }
}

/** Every `api_key_env` named anywhere in a provider configuration's text (read loosely, so a file that would not load still counts). */
export function apiKeyEnvNames(text: string): string[] {
  const names = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'api_key_env' && typeof value === 'string') names.add(value.trim());
      else visit(value);
    }
  };
  try {
    visit(parse(text, { uniqueKeys: false }));
  } catch {
    // Not YAML that parses: fall through to the line pattern, which still finds the names.
  }
  for (const m of text.matchAll(/^\s*["']?api_key_env["']?\s*:\s*["']?([A-Za-z_][A-Za-z0-9_]*)/gm)) names.add(m[1]!);
  return [...names].filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n)).sort();
}

/**
 * Whether a configured value can be searched for without matching ordinary text: at least
 * MIN_KNOWN_LENGTH characters, and not one plain word (`anything`, `Local`, `OLLAMA`), which a
 * model's reply or a spec may hold as a word. Runs keep what models said exactly
 * (docs/redaction.md), so a word-like key's word is in them as text; such a key is a local
 * gateway's placeholder, not a credential, and it is named when the scan skips it.
 */
export function distinctFromText(value: string): boolean {
  return value.length >= MIN_KNOWN_LENGTH && !/^(?:[a-z]+|[A-Z][a-z]+|[A-Z]+)$/.test(value);
}

/** Variables whose NAME says they hold an API key, searched for even when no configuration names them. */
export const KEY_NAME = /_API_KEY$/i;

export interface KnownKeys {
  keys: KnownKey[];
  /** Named variables that are set but cannot be told from text (see {@link distinctFromText}): not searched for. */
  tooShort: string[];
  /** Named variables that are not set here (nothing to search for). */
  unset: string[];
}

/** The values to search for: every variable the configurations name, and every `*_API_KEY`, as set in `env`. */
export async function knownKeys(configFiles: readonly string[], env: Readonly<Record<string, string | undefined>>): Promise<KnownKeys & { names: string[] }> {
  const names = new Set<string>();
  for (const file of configFiles) for (const name of apiKeyEnvNames(await readFile(file, 'utf8'))) names.add(name);
  for (const name of Object.keys(env)) if (KEY_NAME.test(name)) names.add(name);
  const out: KnownKeys & { names: string[] } = { keys: [], tooShort: [], unset: [], names: [...names].sort() };
  for (const name of out.names) {
    const value = env[name];
    if (!value) out.unset.push(name);
    else if (!distinctFromText(value)) out.tooShort.push(name);
    else out.keys.push({ name, value });
  }
  return out;
}
