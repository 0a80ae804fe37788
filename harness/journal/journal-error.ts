import { RdhError } from '../../engine/index.js';

/** Why a journal was refused; tests and the record command key on it, people read the message. */
export type JournalProblem = 'not_utf8' | 'blank_line' | 'not_json' | 'unknown_type' | 'unknown_version' | 'invalid_event' | 'gap' | 'conflict' | 'structure' | 'changed';

/**
 * A journal that cannot be resumed as it stands. One line: the file and line, what is wrong,
 * and the fix. Nothing was written when this is thrown.
 */
export class JournalInvalidError extends RdhError {
  readonly code = 'journal_invalid';
  constructor(
    readonly problem: JournalProblem,
    /** 1-based line of the journal the problem was found on; 0 when it is about the whole file. */
    readonly line: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Another writer holds the journal (one writer per file, across processes too). */
export class JournalBusyError extends RdhError {
  readonly code = 'journal_busy';
}

/** The disk refused a write: the journal is closed, and the paid work before it is safe. */
export class JournalWriteError extends RdhError {
  readonly code = 'journal_write_failed';
}

/**
 * The harness tried to journal an event that does not match its own schema: a bug in the
 * caller, refused before anything reached the disk.
 */
export class JournalEventError extends RdhError {
  readonly code = 'journal_event_invalid';
}
