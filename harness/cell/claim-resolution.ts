/**
 * A leaf's claim is criterion text; the metric counts requirements. A claim resolves to the one
 * requirement id it names (`R07`, as every criterion line of a spec objective starts), and to
 * nothing when it names none, or several, or one the spec does not have: such a claim is
 * dropped from the metric and counted, never guessed.
 */
export function resolveClaim(criterion: string, known: ReadonlySet<string>): string | null {
  const named = new Set([...criterion.matchAll(/\bR\d{2}\b/g)].map((m) => m[0]));
  if (named.size !== 1) return null;
  const [id] = named;
  return known.has(id!) ? id! : null;
}
