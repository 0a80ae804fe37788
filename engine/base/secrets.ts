/**
 * The one catalogue of what a secret looks like. It both REDACTS (error messages, causes,
 * stacks, events, transcripts) and FINDS (a publish-time scan reports where, never what).
 * Shapes cover the common vendors' keys and tokens; exact known values (the configured API
 * keys) are caught too, including a server's truncated or masked echo of one.
 *
 * Deliberately not secrets: hex digests (`sha256:...`, 64-hex container and manifest ids) and
 * numbers, which the harness prints and a reviewer must be able to read.
 */

export const SECRET_KINDS = [
  'known_value',
  'private_key',
  'anthropic_key',
  'openai_key',
  'aws_access_key_id',
  'aws_secret_key',
  'github_token',
  'google_api_key',
  'slack_token',
  'jwt',
  'bearer_token',
  'generic_secret',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

/** Where a secret is: enough to find and fix it, never the value (nor its length). */
export interface SecretHit {
  kind: SecretKind;
  /** Offset in the text (UTF-16 code units, as `String.prototype.indexOf` counts). */
  index: number;
  /** 1-based line and column. */
  line: number;
  column: number;
}

interface Shape {
  kind: SecretKind;
  /** Global regex. When it has a capture group 1, only that part is the secret. */
  pattern: RegExp;
  /** Extra test on the secret part, for shapes that would otherwise catch ordinary words. */
  accept?: (value: string) => boolean;
}

/** Letters and digits mixed, long, and not a digest: what a generated credential looks like. */
function highEntropy(value: string): boolean {
  if (value.length < 16) return false;
  if (/^sha\d+:/i.test(value)) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((c) => c.test(value)).length;
  if (classes < 2) return false;
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits >= 3;
}

const tokenLike = (value: string) => /[0-9]/.test(value) && /[A-Za-z]/.test(value);

const SHAPES: Shape[] = [
  // An unterminated block (a cut-off paste) is still a key: it runs to the end of the text.
  { kind: 'private_key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$(?![\s\S]))/g },
  { kind: 'anthropic_key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: 'openai_key', pattern: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  // A server's masked echo of a key ("sk-abc1****wxyz") is still part of one.
  { kind: 'openai_key', pattern: /\bsk-[A-Za-z0-9_-]{0,16}\*{3,}[A-Za-z0-9_-]{0,8}/g },
  { kind: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  // Quotes may come escaped (`\"`, `\\\"`): a transcript or event line holds text JSON-encoded once or twice.
  { kind: 'aws_secret_key', pattern: /aws_?secret_?(?:access_?)?key(?:\\{0,3}["'])?\s*[:=]\s*(?:\\{0,3}["'])?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  { kind: 'slack_token', pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { kind: 'bearer_token', pattern: /Authorization(?:\\{0,3}["'])?\s*[:=]\s*(?:\\{0,3}["'])?Bearer\s+([^\s"',;\\]{4,})/gi },
  { kind: 'bearer_token', pattern: /\bBearer\s+([A-Za-z0-9._~+/-]{16,}=*)/g, accept: tokenLike },
  {
    kind: 'generic_secret',
    // Bounded name parts keep a long run of word characters from costing quadratic time.
    pattern: /(?<![A-Za-z0-9_.-])[A-Za-z0-9_.-]{0,40}(?:key|secret|token|passw(?:or)?d|pwd|credential)[A-Za-z0-9_.-]{0,40}(?:\\{0,3}["'])?\s*[:=]\s*(?:\\{0,3}["'])?([^\s"'`,;)}\]\\]{16,})/gi,
    accept: highEntropy,
  },
];

/** Known values shorter than this are not looked for: they would match ordinary words. */
export const MIN_KNOWN_LENGTH = 8;

interface Span {
  kind: SecretKind;
  start: number;
  end: number;
}

export class SecretCatalogue {
  private readonly known: string[];

  /** `knownValues`: exact secrets to catch wherever they appear (e.g. the configured API keys). */
  constructor(knownValues: Iterable<string> = []) {
    this.known = [...new Set([...knownValues].filter((v) => typeof v === 'string' && v.length >= MIN_KNOWN_LENGTH))];
  }

  /** A catalogue that also knows `values`. */
  with(values: Iterable<string>): SecretCatalogue {
    return new SecretCatalogue([...this.known, ...values]);
  }

  /** Every secret in `text`, in order, as kind and position; never the value. */
  find(text: string): SecretHit[] {
    return this.spans(text).map((s) => ({ kind: s.kind, index: s.start, ...position(text, s.start) }));
  }

  /** `text` with every secret replaced by `[REDACTED <kind>]`. */
  redact(text: string): string {
    let out = '';
    let at = 0;
    for (const s of this.spans(text)) {
      out += `${text.slice(at, s.start)}[REDACTED ${s.kind}]`;
      at = s.end;
    }
    return out + text.slice(at);
  }

  /** A deep copy of plain data (events, transcript lines) with every string redacted. */
  redactDeep<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (Array.isArray(value)) return value.map((v) => this.redactDeep(v)) as T;
    if (value instanceof Error) return this.scrubError(value) as T;
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redactDeep(v)])) as T;
    }
    return value;
  }

  /**
   * A plain Error safe to keep or print: message, stack and the cause chain redacted, and
   * every other property (response headers, bodies, request options) dropped.
   */
  scrubError(error: unknown, depth = 0): Error {
    if (!(error instanceof Error)) return new Error(this.redact(String(error)));
    const cause = depth < 5 && error.cause !== undefined ? this.scrubError(error.cause, depth + 1) : undefined;
    const clean = new Error(this.redact(error.message), cause ? { cause } : undefined);
    clean.name = error.name;
    clean.stack = error.stack ? this.redact(error.stack) : undefined;
    return clean;
  }

  private spans(text: string): Span[] {
    const found: Span[] = [];
    for (const value of this.known) found.push(...knownSpans(text, value));
    for (const shape of SHAPES) {
      for (const m of text.matchAll(shape.pattern)) {
        const secret = m[1] ?? m[0];
        if (!secret || (shape.accept && !shape.accept(secret))) continue;
        const start = m.index + (m[1] !== undefined ? m[0].lastIndexOf(m[1]) : 0);
        found.push({ kind: shape.kind, start, end: start + secret.length });
      }
    }
    // Overlaps merge into one span, so nothing leaks between them; the most specific kind names it.
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    const merged: Span[] = [];
    for (const s of found) {
      const last = merged.at(-1);
      if (!last || s.start >= last.end) {
        merged.push({ ...s });
        continue;
      }
      last.end = Math.max(last.end, s.end);
      if (SECRET_KINDS.indexOf(s.kind) < SECRET_KINDS.indexOf(last.kind)) last.kind = s.kind;
    }
    return merged;
  }
}

/**
 * A known value, whole or as an echo: a prefix of at least a third of it (8 characters at
 * least), with whatever mask and tail a server printed after it ("sk-abc123…wxyz").
 */
function knownSpans(text: string, value: string): Span[] {
  const spans: Span[] = [];
  const least = Math.max(MIN_KNOWN_LENGTH, Math.ceil(value.length / 3));
  const probe = value.slice(0, least);
  for (let i = text.indexOf(probe); i >= 0; i = text.indexOf(probe, i + 1)) {
    let end = i + least;
    while (end - i < value.length && text[end] === value[end - i]) end++;
    if (end - i < value.length) {
      const tail = /^(?:[*•…]+|\.{3,})[A-Za-z0-9_-]*/.exec(text.slice(end));
      if (tail) end += tail[0].length;
    }
    spans.push({ kind: 'known_value', start: i, end });
  }
  return spans;
}

function position(text: string, index: number): { line: number; column: number } {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  return { line, column: index - before.lastIndexOf('\n') };
}

/** The catalogue of shapes alone, for text that no configured key could be in. */
export const SECRET_SHAPES = new SecretCatalogue();
