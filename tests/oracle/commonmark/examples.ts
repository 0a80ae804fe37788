/**
 * The examples the reference, normaliser and mutants are measured on, until i23-cm-spec's recipe lands:
 * the in-scope sections' examples whose commonmark.js tree holds no list, item, link (other than an
 * autolink), image or HTML node and that define no link reference. A test helper, not a test.
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const spec = require("commonmark-spec") as { tests: SpecExample[] };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const commonmark = require("commonmark");

export interface SpecExample {
  markdown: string;
  html: string;
  section: string;
  number: number;
}

const IN_SCOPE = new Set([
  "Tabs", "Backslash escapes", "Entity and numeric character references", "Precedence", "Thematic breaks",
  "ATX headings", "Setext headings", "Indented code blocks", "Fenced code blocks", "Paragraphs", "Blank lines",
  "Block quotes", "Inlines", "Code spans", "Emphasis and strong emphasis", "Autolinks", "Hard line breaks",
  "Soft line breaks", "Textual content",
]);
const OUT_OF_SCOPE_NODES = new Set(["list", "item", "image", "html_block", "html_inline"]);

/** Why an example is left out, or null when it is included. */
export function exclusionReason(example: SpecExample): string | null {
  if (!IN_SCOPE.has(example.section)) return `section ${example.section} is out of scope`;
  const parser = new commonmark.Parser();
  const tree = parser.parse(example.markdown);
  if (Object.keys(parser.refmap).length > 0) return "defines a link reference";
  const walker = tree.walker();
  for (let ev = walker.next(); ev; ev = walker.next()) {
    if (!ev.entering) continue;
    const node = ev.node;
    if (OUT_OF_SCOPE_NODES.has(node.type)) return `holds a ${node.type} node`;
    if (node.type === "link" && !isAutolink(node, example.markdown)) return "holds a link node";
  }
  return null;
}

// commonmark.js marks no autolink as such: one is a link whose only child is its own text, written `<text>`.
function isAutolink(node: { firstChild: { type: string; literal: string; next: unknown } | null }, md: string) {
  const child = node.firstChild;
  return child !== null && child.type === "text" && child.next === null && md.includes(`<${child.literal}>`);
}

// The spec writes a tab as → in its examples (its own test tooling turns it back into a tab).
const withTabs = (text: string) => text.replace(/\u2192/g, "\t");
/** Every example of the pinned spec, tabs restored. */
export const allExamples: SpecExample[] = spec.tests.map((e) => ({
  ...e,
  markdown: withTabs(e.markdown),
  html: withTabs(e.html),
}));
/** The included examples, in spec order. */
export const includedExamples: SpecExample[] = allExamples.filter((e) => exclusionReason(e) === null);
