import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { MIN_KNOWN_LENGTH, SecretCatalogue, type SecretKind } from '../../harness/run-files.js';

/**
 * The publish-time secret scan: the engine's one catalogue of secret shapes, plus the values
 * of the API keys this machine is configured with. It reports where (file, line, kind), never
 * what: no value, no part of one, not even its length.
 *
 * A file is scanned as written and, where its format can hide characters behind escapes (JSON
 * `\u0073k-...`, SVG `&#115;k-...`), once more with those escapes decoded, because the site
 * shows the decoded text. Decoding keeps line breaks where they were, so lines stay true.
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
}

/** JSON's `\uXXXX` (surrogate pairs joined) and `\/` decoded; a decoded control character becomes a space, so lines do not move. */
export function decodeJsonEscapes(text: string): string {
  return text.replace(/\\u([0-9a-fA-F]{4})(?:\\u([0-9a-fA-F]{4}))?|\\\//g, (whole, a?: string, b?: string) => {
    if (a === undefined) return '/';
    const first = Number.parseInt(a, 16);
    const second = b === undefined ? undefined : Number.parseInt(b, 16);
    const decoded = second !== undefined && first >= 0xd800 && first < 0xdc00 && second >= 0xdc00 && second < 0xe000 ? String.fromCharCode(first, second) : String.fromCharCode(first) + (second === undefined ? '' : String.fromCharCode(second));
    return decoded.replace(/[\u0000-\u001f\u007f]/g, ' ');
  });
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML character references and the five named entities decoded; a decoded control character becomes a space. */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos));/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
    if (!(code >= 0 && code <= 0x10ffff)) return whole;
    return String.fromCodePoint(code).replace(/[\u0000-\u001f\u007f]/g, ' ');
  });
}

export class SecretScanner {
  private readonly catalogue: SecretCatalogue;
  private readonly perKey: Array<{ name: string; catalogue: SecretCatalogue }>;

  constructor(readonly keys: readonly KnownKey[]) {
    this.catalogue = new SecretCatalogue(keys.map((k) => k.value));
    this.perKey = keys.map((k) => ({ name: k.name, catalogue: new SecretCatalogue([k.value]) }));
  }

  /** Every secret in `text`, one finding per line and kind, in line order. */
  scan(text: string, format: 'json' | 'xml' | 'text'): SecretFinding[] {
    const views = [text];
    if (format === 'json' && /\\u[0-9a-fA-F]{4}|\\\//.test(text)) views.push(decodeJsonEscapes(text));
    if (format === 'xml' && /&(?:#|amp;|lt;|gt;|quot;|apos;)/.test(text)) views.push(decodeXmlEntities(text));
    const found = new Map<string, SecretFinding>();
    for (const view of views) {
      for (const hit of this.catalogue.find(view)) {
        let variable: string | null = null;
        if (hit.kind === 'known_value') {
          const lineText = view.split('\n')[hit.line - 1] ?? '';
          variable = this.perKey.find((k) => k.catalogue.find(lineText).length > 0)?.name ?? null;
        }
        const key = `${hit.line}:${hit.kind}:${variable ?? ''}`;
        if (!found.has(key)) found.set(key, { line: hit.line, kind: hit.kind, variable });
      }
    }
    return [...found.values()].sort((a, b) => a.line - b.line);
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

/** Variables whose NAME says they hold an API key, searched for even when no configuration names them. */
export const KEY_NAME = /_API_KEY$/i;

export interface KnownKeys {
  keys: KnownKey[];
  /** Named variables that are set but too short to search for without matching ordinary words. */
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
    else if (value.length < MIN_KNOWN_LENGTH) out.tooShort.push(name);
    else out.keys.push({ name, value });
  }
  return out;
}
