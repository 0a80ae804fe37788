import { isUtf8 } from 'node:buffer';
import { readFile } from 'node:fs/promises';
import { canonicalJson } from '../internal/canonical-json.js';
import { JournalInvalidError } from './journal-error.js';
import type { JournalEnvelope, JournalFormat } from './journal-format.js';

/** A journal as read from disk: every durable event, validated, in sequence order. */
export interface JournalContents<E extends JournalEnvelope> {
  readonly file: string;
  /** The path as messages show it. */
  readonly shownAs: string;
  readonly format: JournalFormat<E>;
  /** False when there was no file yet: a new journal. */
  readonly exists: boolean;
  /** Events in order; `events[i].seq === i + 1`. Duplicated lines appear once. */
  readonly events: readonly E[];
  /** Bytes up to and including the last newline: everything that was made durable. */
  readonly durableBytes: number;
  /** Size of the file when read; the writer refuses a file that changed since. */
  readonly fileBytes: number;
  /**
   * A last line without its newline: a write the process did not live to finish, so the step
   * it recorded never counted as done. Ignored here, cut off before the next append.
   */
  readonly tornTail?: { readonly line: number; readonly bytes: number };
  /** Lines that repeated an earlier event exactly (same seq, same content) and were skipped. */
  readonly duplicates: number;
}

export interface ReadJournalOptions {
  /** The path as the user wrote it; every message names the file this way. Default: `file`. */
  shownAs?: string;
}

const NEWLINE = 0x0a;
const FIX = 'record into a new --out';

/**
 * Reads and validates a whole journal. A torn last line is tolerated, a duplicated event is
 * idempotent; anything else that is not exactly the sequence of events this harness wrote
 * is refused with a JournalInvalidError naming the line and the fix, because resuming on top
 * of a journal that lost or changed events would mix two histories into one result.
 */
export async function readJournal<E extends JournalEnvelope>(file: string, format: JournalFormat<E>, options: ReadJournalOptions = {}): Promise<JournalContents<E>> {
  const shownAs = options.shownAs ?? file;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { file, shownAs, format, exists: false, events: [], durableBytes: 0, fileBytes: 0, duplicates: 0 };
    throw error;
  }
  const durableBytes = bytes.lastIndexOf(NEWLINE) + 1;
  const durable = bytes.subarray(0, durableBytes);
  if (!isUtf8(durable)) throw new JournalInvalidError('not_utf8', 0, `${shownAs}: holds bytes that are not UTF-8 text, so it was damaged outside the harness; restore it from a copy, or ${FIX}`);
  const lines = durable.toString('utf8').split('\n');
  lines.pop(); // the empty string after the final newline
  const events: E[] = [];
  let duplicates = 0;
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const event = parseLine(lines[i]!, lineNo, format, shownAs);
    const expected = events.length + 1;
    if (event.seq === expected) {
      events.push(event);
      continue;
    }
    const at = `${shownAs} line ${lineNo}`;
    if (event.seq > expected) {
      const missing = event.seq - expected === 1 ? `event ${expected} is missing` : `events ${expected}-${event.seq - 1} are missing`;
      throw new JournalInvalidError('gap', lineNo, `${at}: sequence jumps from ${expected - 1} to ${event.seq} (${missing}), so lines were lost or removed; restore the journal from a copy, or ${FIX}`);
    }
    // A line that repeats an event already read (a write retried after it had in fact landed).
    if (canonicalJson(event) === canonicalJson(events[event.seq - 1])) {
      duplicates++;
      continue;
    }
    throw new JournalInvalidError('conflict', lineNo, `${at}: a second, different event ${event.seq} (the first is line ${event.seq}), so two histories were written into one file; restore the journal from a copy, or ${FIX}`);
  }
  const torn = bytes.length > durableBytes ? { line: lines.length + 1, bytes: bytes.length - durableBytes } : undefined;
  return { file, shownAs, format, exists: true, events, durableBytes, fileBytes: bytes.length, ...(torn ? { tornTail: torn } : {}), duplicates };
}

function parseLine<E extends JournalEnvelope>(line: string, lineNo: number, format: JournalFormat<E>, shownAs: string): E {
  const at = `${shownAs} line ${lineNo}`;
  const damaged = `restore the journal from a copy, or ${FIX}`;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (error) {
    if (line.trim() === '') throw new JournalInvalidError('blank_line', lineNo, `${at}: is blank, which the harness never writes, so the file was edited; ${damaged}`);
    throw new JournalInvalidError('not_json', lineNo, `${at}: is not JSON (${(error as Error).message}), and it is not the last line, so it is damage rather than an interrupted write; ${damaged}`, { cause: error });
  }
  const head = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const type = head.type;
  if (typeof type !== 'string' || !format.versions.has(type)) {
    const known = [...format.versions.keys()].join(', ');
    const what = typeof type === 'string' ? `event type ${JSON.stringify(type.slice(0, 40))}` : 'an event without a type';
    throw new JournalInvalidError('unknown_type', lineNo, `${at}: ${what} is not one this harness reads (${known}); resume with the harness version that wrote it (see the header), or ${FIX}`);
  }
  const reads = format.versions.get(type)!;
  if (head.version !== reads) {
    throw new JournalInvalidError(
      'unknown_version',
      lineNo,
      `${at}: ${type} event version ${JSON.stringify(head.version)} is not one this harness reads (it reads version ${reads}); resume with the harness version that wrote it (see the header), or ${FIX}`,
    );
  }
  const parsed = format.schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length > 0 ? issue.path.join('.') : '(the event)';
    throw new JournalInvalidError('invalid_event', lineNo, `${at}: ${type} event field ${field}: ${issue.message}; the line was edited or written by a broken harness; ${damaged}`);
  }
  return parsed.data;
}
