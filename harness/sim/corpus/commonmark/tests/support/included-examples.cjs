// Development aid, not part of a written tree: prints as JSON the CommonMark 0.31.2 examples the
// commonmark task grades, read at run time from the pinned commonmark-spec package (nothing of it
// is copied into the project). An example is included when its section is in the task's subset and
// commonmark.js's tree of it holds no list, item, link (other than an autolink), image or HTML node
// and it defines no link reference. Once spec/commonmark's recipe and coverage exist the oracle's
// list is authoritative; this approximation is what the corpus was developed against.
// Usage: node included-examples.cjs > /tmp/cm-examples.json
'use strict';
const spec = require('commonmark-spec');
const commonmark = require('commonmark');

const SECTIONS = new Set([
  'Tabs', 'Backslash escapes', 'Entity and numeric character references', 'Precedence',
  'Thematic breaks', 'ATX headings', 'Setext headings', 'Indented code blocks', 'Fenced code blocks',
  'Paragraphs', 'Blank lines', 'Block quotes', 'Code spans', 'Emphasis and strong emphasis',
  'Autolinks', 'Hard line breaks', 'Soft line breaks', 'Textual content',
]);
const OUTSIDE = new Set(['list', 'item', 'image', 'html_block', 'html_inline']);

/** commonmark.js makes an autolink a link node whose one text child appears in <...> in the source. */
function isAutolink(node, markdown) {
  const child = node.firstChild;
  return child !== null && child === node.lastChild && child.type === 'text' && markdown.includes(`<${child.literal}>`);
}

function reasonToExclude(markdown) {
  const parser = new commonmark.Parser();
  const tree = parser.parse(markdown);
  if (Object.keys(parser.refmap).length > 0) return 'defines a link reference';
  const walker = tree.walker();
  for (let step = walker.next(); step; step = walker.next()) {
    const { node } = step;
    if (OUTSIDE.has(node.type)) return `holds a ${node.type} node`;
    if (node.type === 'link' && !isAutolink(node, markdown)) return 'holds a link node';
  }
  return undefined;
}

const included = [];
for (const t of spec.tests) {
  if (!SECTIONS.has(t.section)) continue;
  const markdown = t.markdown.replace(/→/g, '\t');
  if (reasonToExclude(markdown) !== undefined) continue;
  included.push({ number: t.number, section: t.section, markdown, html: t.html.replace(/→/g, '\t') });
}
process.stdout.write(JSON.stringify(included));
