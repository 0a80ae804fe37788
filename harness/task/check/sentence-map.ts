import { z } from 'zod';
import { propertyOf, type PropertyResult } from './check-result.js';
import type { MutantDeclaration } from './mutant-checks.js';

/**
 * The sentence map (oracle/<task>/coverage.yaml): every sentence of SPEC.md's numbered
 * sections before its requirements section, with a stable id, mapped to the cases that fail
 * when it is violated, or marked unpinned with why. A hole is a sentence without an entry, an
 * entry whose sentence left the spec, an unknown case, a repeated or misplaced id, a pinned
 * sentence no mutant violates, or a mutant naming no pinned sentence. Pure.
 */

const SentenceId = z.string().regex(/^s\d+(\.\d+)?-\d{2}$/, 'is not a sentence id (s<section>-<nn>)');
export const SentenceMap = z.array(
  z.union([
    z.strictObject({ id: SentenceId, section: z.string(), sentence: z.string(), cases: z.array(z.string()).min(1) }),
    z.strictObject({ id: SentenceId, section: z.string(), sentence: z.string(), unpinned: z.string().min(10) }),
  ]),
);
export type SentenceMap = z.infer<typeof SentenceMap>;

/** sentence id -> the cases mapped to it (none when unpinned). */
export function sentenceCases(map: SentenceMap): Map<string, string[]> {
  return new Map(map.map((e) => [e.id, 'cases' in e ? e.cases : []]));
}

/**
 * The sentences of SPEC.md's numbered sections (`## 1.` on) up to its requirements section
 * (`## N. Requirements`): paragraphs, list items and table rows (indented code left out),
 * whitespace folded, split after a full stop that ends a sentence. [section, sentence] pairs.
 */
export function specSentences(spec: string): Array<[string, string]> {
  const start = spec.search(/^## \d+\. /m);
  const end = spec.search(/^## \d+\. Requirements\b/m);
  const body = start < 0 ? '' : spec.slice(start, end > start ? end : undefined);
  const out: Array<[string, string]> = [];
  let section = '';
  for (const block of body.split(/\n\s*\n/)) {
    let lines = block.split('\n');
    if (lines[0]!.startsWith('#')) {
      section = /^#+ (\d+(?:\.\d+)?)/.exec(lines[0]!)?.[1] ?? section;
      lines = lines.slice(1);
    }
    lines = lines.filter((l) => l.trim());
    if (!lines.length || lines.every((l) => l.startsWith('    '))) continue;
    const items: string[] = [];
    for (const l of lines) {
      if (/^(\* |\d+\. |\| )/.test(l) || !items.length) items.push(l.trim());
      else items[items.length - 1] += ` ${l.trim()}`;
    }
    for (const raw of items) {
      const item = raw.replace(/\s+/g, ' ').trim();
      // A table's rule row and header row state nothing.
      if (/^\|[-| ]+\|$/.test(item) || /^\| [a-z]+ \|/.test(item)) continue;
      for (const s of item.split(/(?<=[a-z0-9)`'"*]\.)\s+(?=[A-Z`(])/)) out.push([section, s.trim()]);
    }
  }
  return out;
}

export function sentenceMapHoles(spec: string, map: SentenceMap, caseIds: ReadonlySet<string>, mutants: readonly MutantDeclaration[]): PropertyResult {
  const mapped = new Set(map.map((e) => `${e.section} ${e.sentence}`));
  const inSpec = new Set(specSentences(spec).map(([section, s]) => `${section} ${s}`));
  const seen = new Set<string>();
  const pinned = new Set(map.filter((e) => 'cases' in e).map((e) => e.id));
  const linked = new Set(mutants.map((m) => m.sentence));
  const failures = [
    ...[...inSpec].filter((s) => !mapped.has(s)).map((s) => `sentence without an entry: §${s}`),
    ...[...mapped].filter((s) => !inSpec.has(s)).map((s) => `entry no longer in SPEC.md: §${s}`),
    ...map.flatMap((e) => ('cases' in e ? e.cases.filter((c) => !caseIds.has(c)).map((c) => `${e.id}: unknown case ${c}`) : [])),
    ...map.filter((e) => seen.size === seen.add(e.id).size).map((e) => `${e.id}: id repeated`),
    ...map.filter((e) => !e.id.startsWith(`s${e.section}-`)).map((e) => `${e.id}: id does not name its section ${e.section}`),
    ...[...pinned].filter((id) => !linked.has(id)).map((id) => `${id}: pinned, but no mutant violates it`),
    ...mutants.filter((m) => m.sentence === undefined).map((m) => `${m.id}: names no sentence`),
    ...mutants.filter((m) => m.sentence !== undefined && !pinned.has(m.sentence)).map((m) => `${m.id}: names ${m.sentence}, not a pinned sentence`),
  ];
  const unpinned = map.length - pinned.size;
  return propertyOf('sentence-map', failures, `${map.length} sentences, ${pinned.size} pinned, ${unpinned} unpinned with a reason; every pinned one has a mutant`);
}
