import { commonmark } from './exclusion.js';

/**
 * The requirements whose features an example's expected HTML relies on, read from the tree
 * commonmark.js builds for it: every paragraph relies on R09, every emphasis node on the rules
 * that open, close and match it, every escape or reference in the input on R12 or R13, and so
 * on. spec/commonmark/task.yaml's depends_on must declare each such pair beside the example's
 * own requirement (tests/oracle/commonmark/dependencies.test.ts), so no requirement pretends
 * to an isolation its examples do not have.
 */

interface TreeNode {
  type: string;
  info: string | null;
  sourcepos: [[number, number], [number, number]];
  _isFenced?: boolean;
}

const STAR_EM = ['R16', 'R18', 'R24'];
const UNDERSCORE_EM = ['R17', 'R19', 'R24'];
const STAR_STRONG = ['R20', 'R22', 'R25'];
const UNDERSCORE_STRONG = ['R21', 'R23', 'R25'];

/** The requirements one node relies on; `lines` are the example's input lines. */
function nodeFeatures(node: TreeNode, markdown: string, lines: string[]): string[] {
  switch (node.type) {
    case 'paragraph':
      return ['R09'];
    case 'heading':
      // commonmark.js does not say which kind: an ATX heading's first line holds its `#`.
      return [/^[ >]*#/.test(lines[node.sourcepos[0][0] - 1] ?? '') ? 'R03' : 'R05'];
    case 'thematic_break':
      return ['R02'];
    case 'code_block':
      return node._isFenced ? ['R07', ...(node.info ? ['R08'] : [])] : ['R06'];
    case 'block_quote':
      return ['R10'];
    case 'emph':
      // The tree does not keep the delimiter; the input's characters say which rules could apply.
      return [...(markdown.includes('*') ? STAR_EM : []), ...(markdown.includes('_') ? UNDERSCORE_EM : [])];
    case 'strong':
      return [...(markdown.includes('**') ? STAR_STRONG : []), ...(markdown.includes('__') ? UNDERSCORE_STRONG : [])];
    case 'code':
      return ['R15'];
    case 'linebreak':
      return ['R32'];
    case 'softbreak':
      return ['R33'];
    case 'link':
      return ['R31'];
    default:
      return [];
  }
}

/** Every requirement an example's expected HTML relies on (its own included). */
export function exampleFeatures(markdown: string): Set<string> {
  const walker = new commonmark.Parser().parse(markdown).walker() as unknown as { next(): { entering: boolean; node: TreeNode } | null };
  const lines = markdown.split('\n');
  const uses = new Set<string>();
  for (let step = walker.next(); step; step = walker.next()) if (step.entering) for (const r of nodeFeatures(step.node, markdown, lines)) uses.add(r);
  if (/\\[!-/:-@[-`{-~]/.test(markdown)) uses.add('R12');
  if (/&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]*);/.test(markdown)) uses.add('R13');
  if (markdown.includes('\t')) uses.add('R01');
  return uses;
}

/**
 * The pairs an example relies on that `dependsOn` does not declare, as `R05 -> R12 (example 66)`,
 * each pair once, with the first example showing it.
 */
export function undeclaredDependencies(examples: { number: number; requirement: string; markdown: string }[], dependsOn: Record<string, string[]>): string[] {
  const found = new Map<string, number>();
  for (const e of examples) {
    for (const r of exampleFeatures(e.markdown)) {
      const pair = `${e.requirement} -> ${r}`;
      if (r !== e.requirement && !(dependsOn[e.requirement] ?? []).includes(r) && !found.has(pair)) found.set(pair, e.number);
    }
  }
  return [...found].map(([pair, n]) => `${pair} (example ${n})`);
}
