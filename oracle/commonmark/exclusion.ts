import { createRequire } from 'node:module';

/**
 * Why an example of the CommonMark spec needs a feature outside the commonmark task's subset,
 * decided by an independent parser (commonmark.js, a pinned development dependency), never by
 * hand. An example is left out when the tree commonmark.js builds for it holds a node of a kind
 * the subset does not grade, or when it defines a link reference (a definition renders as
 * nothing, so its effect would be graded without the construct being in the subset).
 */

/** The node kinds of commonmark.js's tree that the subset leaves out, in the order reasons name them. */
export const EXCLUDED_NODES = ['list', 'item', 'link', 'image', 'html_block', 'html_inline'] as const;

interface CmNode {
  type: string;
}
interface CmWalker {
  next(): { entering: boolean; node: CmNode } | null;
}
interface CmInlineParser {
  parseAutolink(block: { lastChild: CmNode | null }): boolean;
}
interface CmParser {
  parse(markdown: string): { walker(): CmWalker };
  refmap: Record<string, unknown>;
  inlineParser: CmInlineParser;
}
interface Commonmark {
  Parser: new () => CmParser;
  HtmlRenderer: new () => { render(tree: unknown): string };
}

/** commonmark.js (CommonJS, untyped): loaded through require, typed by the little used here. */
export const commonmark = createRequire(import.meta.url)('commonmark') as Commonmark;

/**
 * The reason an example is excluded, or undefined when the subset covers it. Autolinks are in
 * the subset but commonmark.js builds them as `link` nodes; the parser's own autolink routine
 * is wrapped to mark the nodes it makes, so only other links exclude.
 */
export function exclusionReason(markdown: string): string | undefined {
  const parser = new commonmark.Parser();
  const autolinks = new WeakSet<CmNode>();
  const inline = parser.inlineParser;
  const parseAutolink = inline.parseAutolink;
  inline.parseAutolink = function (block) {
    const made = parseAutolink.call(this, block);
    if (made && block.lastChild) autolinks.add(block.lastChild);
    return made;
  };
  const walker = parser.parse(markdown).walker();
  const found = new Set<string>();
  for (let step = walker.next(); step; step = walker.next()) {
    if (step.entering && !autolinks.has(step.node)) found.add(step.node.type);
  }
  const reasons: string[] = [];
  const nodes = EXCLUDED_NODES.filter((t) => found.has(t));
  if (nodes.length) reasons.push(`holds ${nodes.join(', ')}`);
  // The block parser records every definition it consumes in refmap, used or not.
  const labels = Object.keys(parser.refmap);
  if (labels.length) reasons.push(`defines link reference${labels.length > 1 ? 's' : ''} ${labels.map((l) => `[${l}]`).join(' ')}`);
  return reasons.length ? reasons.join('; ') : undefined;
}
