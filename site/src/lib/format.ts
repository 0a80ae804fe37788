/** How the site prints figures: never NaN, never infinity, never a missing price as $0. */

export function count(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

export function tokens(n: number): string {
  if (!Number.isFinite(n)) return '–';
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1)}M`;
  if (n >= 1e4) return `${Math.round(n / 1e3)}k`;
  return count(n);
}

export function usd(n: number | null): string {
  if (n === null || !Number.isFinite(n)) return 'unknown';
  return n === 0 ? '$0' : n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

export function share(n: number | null): string {
  return n === null || !Number.isFinite(n) ? '–' : n.toFixed(3);
}

/** `2026-01-02 03:04 UTC` from an ISO time; the text as given when it is not one. */
export function when(iso: string | null): string {
  if (!iso) return '–';
  const t = Date.parse(iso);
  return Number.isFinite(t) ? `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC` : iso;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${count(n)} ${n === 1 ? one : many}`;
}
