/**
 * The views of a file the secret scan reads: the text as written, and the text with the
 * escapes its format can hide characters behind decoded, repeatedly, because a reader (or a
 * page built from the file) sees the decoded text. A token right after an escaped newline
 * (`\nsk-...`) is invisible to a word boundary as written; a key spelled `\u0073k-...`, or
 * `&#115;k-...` in an SVG, or JSON inside a JSON string (`\\n`, `\\u0073k-`) shows whole only
 * once decoded.
 *
 * Every decoder keeps each line break of the file where it was, so a finding's line is the
 * line of the file as written: a decoded line break (`\n`, `&#10;`, `%0A`) becomes U+2028 LINE
 * SEPARATOR, which ends a token and an assignment as a line break does but is not counted as
 * one, and any other decoded control character becomes a space.
 */

/** How a file is read: which escapes its text can hold. */
export type ScanFormat = 'json' | 'xml' | 'html' | 'csv' | 'text';

/** At most this many decoding passes: enough for text encoded inside text a few times over, bounded against a crafted file. */
export const MAX_DECODE_PASSES = 6;

/** What a decoded line break becomes: a line break to every pattern, not to the line count. */
export const DECODED_BREAK = '\u2028';
const CONTROL = /[\u0000-\u001f\u007f]/g;
const harmless = (decoded: string) => decoded.replace(CONTROL, (c) => (c === '\n' || c === '\r' ? DECODED_BREAK : ' '));

/** What a simple JSON escape's letter stands for, read as the scan wants it (a break, a space, the character). */
function simpleEscape(letter: string): string | undefined {
  switch (letter) {
    case '"':
    case '\\':
    case '/':
      return letter;
    case 'n':
    case 'r':
      return DECODED_BREAK;
    case 'b':
    case 'f':
    case 't':
      return ' ';
    default:
      return undefined;
  }
}

const HEX4 = /^[0-9a-fA-F]{4}$/;

/** The `\uXXXX` escape at `at` (and a low surrogate's escape right after a high one), or null. */
function unicodeEscape(text: string, at: number): { text: string; length: number } | null {
  const hex = text.slice(at + 2, at + 6);
  if (!HEX4.test(hex)) return null;
  const first = Number.parseInt(hex, 16);
  if (first >= 0xd800 && first < 0xdc00 && text.startsWith('\\u', at + 6)) {
    const low = text.slice(at + 8, at + 12);
    const second = HEX4.test(low) ? Number.parseInt(low, 16) : -1;
    if (second >= 0xdc00 && second < 0xe000) return { text: String.fromCharCode(first, second), length: 12 };
  }
  return { text: harmless(String.fromCharCode(first)), length: 6 };
}

/**
 * Every JSON string escape decoded once: `\" \\ \/ \b \f \n \r \t` and `\uXXXX` (surrogate
 * pairs joined). Left to right, as a JSON reader does, so `\\n` becomes `\n` (text that holds
 * an escape, decoded by the next pass), not a backslash and a newline. A backslash before
 * anything else is left as it is. A loop rather than a regex replace: transcripts hold
 * hundreds of thousands of escapes, and this runs on every one.
 */
export function decodeJsonEscapes(text: string): string {
  let at = text.indexOf('\\');
  if (at < 0) return text;
  const out: string[] = [];
  let from = 0;
  while (at >= 0) {
    const letter = text[at + 1];
    const simple = letter === undefined ? undefined : simpleEscape(letter);
    const decoded = simple !== undefined ? { text: simple, length: 2 } : letter === 'u' ? unicodeEscape(text, at) : null;
    if (!decoded) {
      at = text.indexOf('\\', at + 1);
      continue;
    }
    out.push(text.slice(from, at), decoded.text);
    from = at + decoded.length;
    at = text.indexOf('\\', from);
  }
  out.push(text.slice(from));
  return out.join('');
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * XML character references and the common named entities decoded once. A numeric reference
 * without its `;` counts too: an HTML page (and an SVG inlined in one) is read that leniently.
 */
export function decodeXmlEntities(text: string): string {
  return text.replace(/&(?:#(\d{1,7});?|#[xX]([0-9a-fA-F]{1,6});?|(amp|lt|gt|quot|apos|nbsp);)/g, (whole, dec?: string, hex?: string, name?: string) => {
    if (name) return NAMED[name]!;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex!, 16);
    if (!(code >= 0 && code <= 0x10ffff)) return whole;
    return harmless(String.fromCodePoint(code));
  });
}

/** A CSV field's doubled quote (`""`) read as the one quote it stands for, so `key=""...""` reads as an assignment. */
export function decodeCsvQuotes(text: string): string {
  return text.replace(/""/g, '"');
}

/** URL percent-escapes decoded once (`%20sk-...` hides a token behind the `0` as written). */
export function decodePercent(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => harmless(String.fromCharCode(Number.parseInt(hex, 16))));
}

type Decoder = (text: string) => string;

/**
 * What each format's reader decodes, plus JSON escapes and percent-escapes everywhere: a
 * literal `\n` or `%20` before a token defeats its word boundary in any text, and a page may
 * quote JSON or a URL inside any format.
 */
const DECODERS: Record<ScanFormat, readonly Decoder[]> = {
  json: [decodeJsonEscapes, decodePercent],
  xml: [decodeXmlEntities, decodeJsonEscapes, decodePercent],
  html: [decodeXmlEntities, decodeJsonEscapes, decodePercent],
  csv: [decodeCsvQuotes, decodeJsonEscapes, decodePercent],
  text: [decodeXmlEntities, decodeJsonEscapes, decodePercent],
};

/** How a file name says to read it: by its extension, and as `text` (every decoder) when it says nothing known. */
export function formatOf(fileName: string): ScanFormat {
  const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
  if (ext === 'json' || ext === 'jsonl' || ext === 'webmanifest' || ext === 'map') return 'json';
  if (ext === 'svg' || ext === 'xml') return 'xml';
  if (ext === 'html' || ext === 'htm') return 'html';
  if (ext === 'csv') return 'csv';
  return 'text';
}

/**
 * The text as written, then the result of each decoding pass while it still changes something
 * (each pass applies every decoder of the format in turn; at most MAX_DECODE_PASSES).
 */
export function scanViews(text: string, format: ScanFormat): string[] {
  const views = [text];
  for (let pass = 0; pass < MAX_DECODE_PASSES; pass++) {
    const current = views.at(-1)!;
    let next = current;
    for (const decode of DECODERS[format]) next = decode(next);
    if (next === current) break;
    views.push(next);
  }
  return views;
}
