import { count, plain, tokens } from '../internal/figures.js';
import { wrap } from '../internal/text-table.js';
import type { Constraint, PairLoad, WallTime } from './wall-time.js';

/** The plan's text for the wall-time forecast (wall-time.ts), each figure labelled with where it came from. */

/** Seconds as a wall time a person plans by: 40 min, 7.5 h, 19 h, 8.1 days. */
export function wallDuration(seconds: number): string {
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min`;
  const hours = seconds / 3600;
  if (hours < 48) return `${hours < 10 ? hours.toFixed(1) : Math.round(hours)} h`;
  return `${(hours / 24).toFixed(1)} days`;
}

/** A short duration for a per-call or per-session figure: 2.6 s, 20 s, 2.0 min. */
function short(seconds: number): string {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 120) return `${Math.round(seconds)} s`;
  return `${(seconds / 60).toFixed(1)} min`;
}

/** What a floor is, e.g. "500 requests/min at gateway" or "4 sessions in flight x 2.0 min a session". */
export function constraintText(c: Constraint): string {
  switch (c.kind) {
    case 'requests':
      return `${count(c.limit)} requests/min at ${c.where} (${count(c.load)} calls)`;
    case 'tokens':
      return `${count(c.limit)} tokens/min at ${c.where} (${tokens(c.load)} tokens)`;
    case 'latency':
      return `latency ${short(c.per ?? 0)} x ${count(c.limit)} calls in flight at ${c.where}`;
    case 'sessions':
      return `${count(c.limit)} sessions in flight x ${short(c.per ?? 0)} a session`;
    case 'docker':
      return `Docker hosts' capacity ${count(c.limit)} x ${short(c.per ?? 0)} a session`;
  }
}

const SOURCE = { declared: 'declared', measured: 'measured', assumed: 'assumed' } as const;

function basisText(l: PairLoad): string {
  const calls = `${plain(Number(l.callsPerSession.value.toFixed(1)))} calls a session (${SOURCE[l.callsPerSession.source]})`;
  const toks = `${tokens(l.tokensPerCall.value)} tokens a call (${l.tokensPerCall.source === 'assumed' ? 'a session at its token ceiling' : SOURCE[l.tokensPerCall.source]})`;
  const latency = l.latencyS ? `latency ${short(l.latencyS.value)} (${SOURCE[l.latencyS.source]})` : 'latency unknown';
  const session = l.sessionS ? `; ${short(l.sessionS.value)} a session, tools included (measured)` : '';
  return `${l.pair} at ${l.provider.name}: ${count(l.sessions)} sessions, ${calls}, ${toks}, ${latency}${session}`;
}

/** A paragraph wrapped at 96 columns: its first line at `indent`, the rest two further in. */
const para = (text: string, indent: string) => wrap(text, 96 - indent.length, `${indent}  `).map((line, i) => (i === 0 ? `${indent}${line}` : line));

/** The forecast's lines, under a heading such as "Wall time" or "Wall time of the cells left". */
export function wallTimeLines(w: WallTime, heading: string): string[] {
  if (w.status === 'unknown') return para(`${heading}: cannot forecast, ${w.why}.`, '');
  const approx = w.status === 'lower_bound' ? 'at least' : '≈';
  const others = w.others.map((c) => `${constraintText(c)} would allow ${wallDuration(c.seconds)}`);
  const lines = para(`${heading} ${approx} ${wallDuration(w.seconds)} (bound: ${constraintText(w.bound)}${others.length ? `; ${others.join('; ')}` : ''}).`, '');
  if (w.missing.length) lines.push(...para(`Only a lower bound: nothing says the ${w.missing.join('; nor the ')}.`, '  '));
  // Said only where a day is not met already: the number of sessions a day needs.
  if (w.inFlightForADay !== undefined && w.seconds > 86_400) lines.push(...para(`Under a day needs ${w.inFlightForADay.toFixed(1)} sessions in flight on average (at these seconds a session).`, '  '));
  if (w.ceiling) lines.push(...para(`max_sessions ${count(w.ceiling.maxSessions)} stops the sweep after ${approx} ${wallDuration(w.ceiling.seconds)}.`, '  '));
  for (const l of w.basis) lines.push(...para(basisText(l), '  '));
  return lines;
}
