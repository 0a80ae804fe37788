/**
 * The rendering conventions of the graded HTML, as forms: a tag with its attribute values
 * replaced by `…` (`<code class="…">`, `<hr />`), or a character reference (`&quot;`).
 * SPEC.md section 4 lists every form in a table whose first column is the form in backticks;
 * a graded example whose expected HTML uses a form the table does not list would grade a
 * convention an agent was never told (tests/oracle/commonmark/conventions.test.ts).
 */

const TABLE_HEADING = '## 4. Rendering conventions';

/** The forms SPEC.md's conventions table lists. */
export function statedForms(specMd: string): Set<string> {
  const start = specMd.indexOf(TABLE_HEADING);
  if (start < 0) throw new Error(`SPEC.md has no "${TABLE_HEADING}" section`);
  const end = specMd.indexOf('\n## ', start + TABLE_HEADING.length);
  const section = specMd.slice(start, end < 0 ? undefined : end);
  const forms = [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
  if (!forms.length) throw new Error(`SPEC.md's "${TABLE_HEADING}" has no table of forms`);
  return new Set(forms);
}

/**
 * Every form one expected HTML uses. In HTML every `<` opens a tag and every `&` a reference
 * (text carries them as `&lt;` and `&amp;`), so a bare `<` or `&` is reported as itself: a form
 * no table can state, which fails the check rather than hiding.
 */
export function formsUsed(html: string): string[] {
  const forms: string[] = [];
  for (const m of html.matchAll(/<[^<>]*>|<|&[#A-Za-z0-9]+;|&/g)) forms.push(m[0].replace(/="[^"]*"/g, '="…"'));
  return forms;
}

/** Forms used by the examples and not stated, each with the first example number using it. */
export function unstatedForms(examples: { number: number; html: string }[], stated: Set<string>): string[] {
  const first = new Map<string, number>();
  for (const e of examples) for (const f of formsUsed(e.html)) if (!stated.has(f) && !first.has(f)) first.set(f, e.number);
  return [...first].map(([f, n]) => `${f} (first in example ${n})`);
}
