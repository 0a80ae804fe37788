import { SECRET_KINDS, SHAPES, type SecretKind } from './secret-shapes.js';

/**
 * The one catalogue of what a secret looks like. It both REDACTS (error messages, causes,
 * stacks, events, transcripts) and FINDS (a publish-time scan reports where, never what).
 * Shapes (secret-shapes.ts) cover the well-known vendors' keys and tokens; exact known values
 * (the configured API keys) are caught too, including a server's truncated or masked echo of one.
 *
 * Deliberately not secrets: hex digests (`sha256:...`, 64-hex container and manifest ids) and
 * numbers, which the harness prints and a reviewer must be able to read.
 */

export { SECRET_GROUPS, SECRET_KINDS, type SecretKind } from './secret-shapes.js';

/** Where a secret is: enough to find and fix it, never the value (nor its length). */
export interface SecretHit {
  kind: SecretKind;
  /** Offset in the text (UTF-16 code units, as `String.prototype.indexOf` counts). */
  index: number;
  /** 1-based line and column. */
  line: number;
  column: number;
}

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

  /** The known values in `text` alone, without the shapes: a cheap search for a text the shapes have been run on in another form. */
  findKnown(text: string): SecretHit[] {
    const spans = this.known.flatMap((value) => knownSpans(text, value)).sort((a, b) => a.start - b.start);
    return spans.map((s) => ({ kind: s.kind, index: s.start, ...position(text, s.start) }));
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
    const present = presentNeedles(text);
    for (const shape of SHAPES) {
      if (!shape.needles.some((n) => present.has(n.toLowerCase()))) continue;
      for (const m of text.matchAll(shape.pattern)) {
        const secret = m[1] ?? m[0];
        if (!secret || (shape.accept && !shape.accept(secret))) continue;
        const start = m.index + (m[1] !== undefined ? m[0].lastIndexOf(m[1]) : 0) - (shape.before ?? 0);
        found.push({ kind: shape.kind, start, end: start + secret.length + (shape.before ?? 0) });
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

/** Every shape's needles, lowercased, longest first, each with the shorter needles it holds. */
const NEEDLES = [...new Set(SHAPES.flatMap((s) => s.needles.map((n) => n.toLowerCase())))].sort((a, b) => b.length - a.length);
const HELD = new Map(NEEDLES.map((n) => [n, NEEDLES.filter((m) => n.includes(m))]));
/** One pass for all needles: a lookahead at every offset, so overlapping needles are all seen. */
const NEEDLE_PATTERN = new RegExp(`(?=(${NEEDLES.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}))`, 'gi');

/**
 * The needles `text` holds. At each offset the longest needle there is taken, and every needle
 * it holds counts as present too: a needle that starts at that offset is a prefix of it.
 */
function presentNeedles(text: string): Set<string> {
  const present = new Set<string>();
  for (const m of text.matchAll(NEEDLE_PATTERN)) {
    const needle = m[1]!.toLowerCase();
    if (present.has(needle)) continue;
    for (const held of HELD.get(needle) ?? [needle]) present.add(held);
  }
  return present;
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
