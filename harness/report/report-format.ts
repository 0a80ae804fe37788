import type { Interval } from '../stats/interval.js';
import { count, tokens, usd } from '../internal/figures.js';
import type { Spend } from '../journal/cell-measurement.js';

/**
 * How the report's words print its numbers. Every function refuses a figure that is not finite
 * (a bug upstream), so no NaN or infinity can reach report.md or a terminal.
 */

function finite(n: number): number {
  if (!Number.isFinite(n)) throw new RangeError(`a report figure is ${n}; figures must be finite (this is a bug)`);
  return n;
}

/** A survival or a difference: three decimals, a sign for differences. */
export function share(n: number, signed = false): string {
  const text = finite(n).toFixed(3);
  return signed && n > 0 ? `+${text}` : text === '-0.000' ? '0.000' : text;
}

export function percent(n: number): string {
  return `${Math.round(finite(n) * 100)}%`;
}

/**
 * An estimate with its interval and pair count: `0.912 [0.850, 0.970] (8 pairs)`,
 * `0.870 [0.806, 0.934] (uncalibrated, 2 pairs)`, `0.737 (1 pair, no interval)`.
 */
export function estimateText(figure: { estimate: number; interval: Interval }, pairs: number, signed = false): string {
  const n = `${pairs} ${pairs === 1 ? 'pair' : 'pairs'}`;
  const { interval } = figure;
  if (interval.kind === 'none') return interval.reason === IDENTICAL_BY_DESIGN ? `${share(figure.estimate, signed)} (identical by design)` : `${share(figure.estimate, signed)} (${n}, no interval)`;
  const range = `[${share(interval.low, signed)}, ${share(interval.high, signed)}]`;
  const spread = interval.assumedSpread !== null ? `, no spread: assumed spread SD ${share(interval.assumedSpread)}` : '';
  const note = interval.calibrated ? n : `uncalibrated, ${n}${spread}`;
  return `${share(figure.estimate, signed)} ${range} (${note})`;
}

/**
 * The reason a level-0 difference has no interval under shared pairing: a root that executes is
 * one tree both arms grade, so gated − ungated is 0 by construction, never evidence.
 */
export const IDENTICAL_BY_DESIGN = 'identical by design: under shared pairing both arms grade the one level-0 tree';

export function truthText(truth: number | null, signed = false): string {
  return truth === null ? '–' : share(truth, signed);
}

/** Dollars, or "unknown" (never $0) when a session had no known price. */
export function dollars(value: number | null): string {
  return value === null ? 'unknown' : usd(value);
}

export function spendText(spend: Spend): string {
  const estimated = spend.estimatedCalls ? ` (${count(spend.estimatedCalls)} ${spend.estimatedCalls === 1 ? 'call' : 'calls'} with estimated usage)` : '';
  return `${count(spend.sessions)} sessions, ${tokens(spend.tokens.input)} in (${tokens(spend.tokens.cached)} cached) / ${tokens(spend.tokens.output)} out, ${dollars(spend.costUsd)}${estimated}`;
}

/** Text from a journal or a provider made safe inside a Markdown table cell: one line, no pipes, no HTML. */
export function cellText(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .trim();
}

/** A Markdown table from a header and rows. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align: ReadonlyArray<'l' | 'r'> = []): string[] {
  const rule = header.map((_, i) => (align[i] === 'r' ? '---:' : '---'));
  return [`| ${header.join(' | ')} |`, `| ${rule.join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)];
}
