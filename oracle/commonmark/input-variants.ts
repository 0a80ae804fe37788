import type { Coverage } from './spec-examples.js';

/**
 * Graded documents beyond the spec's examples, for SPEC section 1's line endings and section 4's
 * U+0000, none of which an example of commonmark-spec 0.31.2 holds raw. Found by method, not listed:
 * for each requirement, its first example (by number) with a line feed inside the document is graded
 * again with every line feed a carriage return, and its second with every one a CR LF; the expected
 * HTML is the example's own, since the output uses line feeds only. The NUL documents are
 * coverage.yaml's `nul_inputs`. tests/oracle/commonmark/input-variants.test.ts holds commonmark.js
 * to the same expected HTML on every one.
 */
export interface InputVariant {
  /** The case id's tail: `ex<number>-cr`, `ex<number>-crlf` or `nul<index>`. */
  key: string;
  requirement: string;
  markdown: string;
  html: string;
}

interface Example {
  number: number;
  requirement: string;
  markdown: string;
  html: string;
}

const ENDINGS = [
  ['cr', '\r'],
  ['crlf', '\r\n'],
] as const;

/** The variants of `examples` (in number order per requirement) and coverage's NUL documents; pure. */
export function inputVariants(examples: readonly Example[], coverage: Pick<Coverage, 'nul_inputs'>): InputVariant[] {
  const out: InputVariant[] = [];
  const byRequirement = new Map<string, Example[]>();
  for (const e of [...examples].sort((a, b) => a.number - b.number)) {
    // A line feed before the last character: the document has more than one line, so the ending matters.
    if (!e.markdown.slice(0, -1).includes('\n')) continue;
    byRequirement.set(e.requirement, [...(byRequirement.get(e.requirement) ?? []), e]);
  }
  for (const [requirement, list] of [...byRequirement].sort(([a], [b]) => a.localeCompare(b))) {
    ENDINGS.forEach(([name, ending], i) => {
      const e = list[Math.min(i, list.length - 1)]!;
      out.push({ key: `ex${e.number}-${name}`, requirement, markdown: e.markdown.replace(/\n/g, ending), html: e.html });
    });
  }
  coverage.nul_inputs.forEach((c, i) => out.push({ key: `nul${i + 1}`, requirement: c.requirement, markdown: c.markdown, html: c.html }));
  return out;
}
