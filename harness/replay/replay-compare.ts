import type { ChatMessage, ModelRequest } from '../../engine/index.js';
import { normaliseText } from '../record/recorded-client.js';
import type { RecordedCall } from '../journal/transcripts.js';

/**
 * The pure half of `harness replay`: the canonical form a recorded and a replayed result are
 * compared in, and the first place two of them differ, named the way a reader looks for it
 * (which node, which field, expected against got).
 *
 * Canonical form, applied to both sides alike:
 * - every string gets the recorded-call client's documented normalisation (durations,
 *   hexadecimal ids, ISO times; see normaliseText), because a check's output reports timings;
 * - a host path into a cell's work folder (`…/cells/<cell>/work/…`) becomes `<work>/…`: the
 *   replay builds its trees in its own scratch folder, never in the recorded run's;
 * - keys that only measure time (`elapsedMs`, `latencyMs`, `ts`, `at`) are dropped;
 * - a fractional number is read to 12 significant digits, as the report writes it: a sum of
 *   prices whose sessions finished in another order differs in its last bit (0.1969770000000001
 *   against 0.19697700000000012), which is float noise, not another figure.
 * Nothing else is forgiven.
 */

const WORK_PATH = /[^\s"']*\/cells\/cap\d+-rep\d+-(?:gated|ungated)\/work\//g;
const TIMING_KEYS: ReadonlySet<string> = new Set(['elapsedMs', 'latencyMs', 'ts', 'at']);

/** `value` in canonical form (see above). */
export function canonicalForm(value: unknown): unknown {
  if (typeof value === 'string') return normaliseText(value.replace(WORK_PATH, '<work>/'));
  if (Array.isArray(value)) return value.map(canonicalForm);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([key, v]) => !TIMING_KEYS.has(key) && v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, v]) => [key, canonicalForm(v)]),
    );
  }
  if (typeof value === 'number' && Number.isFinite(value) && !Number.isInteger(value)) return Number(value.toPrecision(12));
  return value;
}

/** Where two canonical values first differ: the node it sits in (when the value is a node tree), the field path, and both sides. */
export interface Difference {
  /** The id of the innermost node holding the difference; undefined outside a node tree. */
  node?: string;
  /** Dotted path below that node (array items by index, checks and requirements by id). */
  path: string;
  expected: unknown;
  got: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** An array item's name in a path: its `id` when it has one (a check, a requirement, a node), else its index. */
const itemName = (item: unknown, i: number) => (isObject(item) && typeof item.id === 'string' ? item.id : String(i));

export function treeDifference(expected: unknown, got: unknown, at: { node?: string; path: string[] } = { path: [] }): Difference | undefined {
  const here = () => ({ ...(at.node !== undefined ? { node: at.node } : {}), path: at.path.join('.') || '(the value)', expected, got });
  if (Array.isArray(expected) && Array.isArray(got)) {
    for (let i = 0; i < Math.min(expected.length, got.length); i++) {
      const d = treeDifference(expected[i], got[i], { ...at, path: [...at.path, itemName(expected[i], i)] });
      if (d) return d;
    }
    if (expected.length !== got.length) return { ...here(), expected: `${expected.length} item(s)`, got: `${got.length} item(s)` };
    return undefined;
  }
  if (isObject(expected) && isObject(got)) {
    // Entering a node of the tree: paths restart below it, so a difference names its node.
    const node = typeof expected.id === 'string' && Array.isArray(expected.children) ? { node: expected.id, path: [] as string[] } : at;
    for (const key of [...new Set([...Object.keys(expected), ...Object.keys(got)])].sort()) {
      const d = treeDifference(expected[key], got[key], { ...node, path: [...node.path, key] });
      if (d) return d;
    }
    return undefined;
  }
  return JSON.stringify(expected) === JSON.stringify(got) ? undefined : here();
}

/** A value shown in one line, cut to `max` characters around nothing in particular (its head). */
export function shown(value: unknown, max = 160): string {
  const text = value === undefined ? 'absent' : JSON.stringify(value);
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Two texts shown around the first character where they differ, so a long prompt's change is visible. */
export function aroundFirstChange(expected: string, got: string, context = 60): { expected: string; got: string } {
  let i = 0;
  while (i < expected.length && i < got.length && expected[i] === got[i]) i++;
  const from = Math.max(0, i - context);
  const cut = (s: string) => `${from > 0 ? '…' : ''}${s.slice(from, i + context)}${s.length > i + context ? '…' : ''}`;
  return { expected: cut(expected), got: cut(got) };
}

/**
 * Which message of a request first differs from the recorded call's history, after the
 * documented normalisation: what the engine asked against what the record holds.
 */
export function messageDifference(request: Pick<ModelRequest, 'messages'>, recorded: RecordedCall | undefined): { message: string; expected: string; got: string } | undefined {
  if (!recorded) return undefined;
  const text = (m: ChatMessage | undefined) => (m === undefined ? 'absent' : normaliseText(JSON.stringify(canonicalForm(m))));
  const n = Math.max(request.messages.length, recorded.messages.length);
  for (let i = 0; i < n; i++) {
    const [want, have] = [text(recorded.messages[i]), text(request.messages[i])];
    if (want === have) continue;
    const role = (request.messages[i] ?? recorded.messages[i])!.role;
    return { message: `message ${i + 1} of ${n} (${role})`, ...aroundFirstChange(want, have) };
  }
  return undefined;
}
