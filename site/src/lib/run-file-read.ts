import { readFile } from 'node:fs/promises';
import type { ZodType } from 'zod';

/**
 * Reading a run file and validating it against the schema the harness wrote it with. Every
 * refusal names the file, the line (JSONL) and the field, so a stale committed example says
 * what changed; it never quotes a value.
 */

/** A run file that does not parse, or does not match its schema. */
export class RunFileInvalidError extends Error {
  readonly code = 'run_file_invalid';
}

interface Issue {
  path: PropertyKey[];
  message: string;
}

function describe(issues: readonly Issue[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path.length ? i.path.map(String).join('.') : '(top)'}: ${i.message}`);
  return shown.join('; ') + (issues.length > 3 ? `; and ${issues.length - 3} more` : '');
}

/** One JSON document validated by `schema`. */
export function parseJson<T>(text: string, schema: ZodType<T>, shownAs: string): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RunFileInvalidError(`${shownAs}: not valid JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new RunFileInvalidError(`${shownAs}: does not match its schema (${describe(parsed.error.issues)})`);
  return parsed.data;
}

/**
 * JSON Lines, each validated by `schema`. Blank lines are skipped. A last line with no
 * newline after it that does not parse is a write cut short by a stop, not a corrupt file:
 * it is dropped and reported in `torn`; anywhere else a bad line is refused.
 */
export function parseJsonl<T>(text: string, schema: ZodType<T>, shownAs: string): { records: T[]; torn: boolean } {
  const lines = text.split('\n');
  const records: T[] = [];
  let torn = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (i === lines.length - 1) {
        torn = true;
        continue;
      }
      throw new RunFileInvalidError(`${shownAs} line ${i + 1}: not valid JSON`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new RunFileInvalidError(`${shownAs} line ${i + 1}: does not match its schema (${describe(parsed.error.issues)})`);
    records.push(parsed.data);
  }
  return { records, torn };
}

export async function readJson<T>(file: string, schema: ZodType<T>, shownAs: string): Promise<T> {
  return parseJson(await readFile(file, 'utf8'), schema, shownAs);
}

export async function readJsonl<T>(file: string, schema: ZodType<T>, shownAs: string): Promise<{ records: T[]; torn: boolean }> {
  return parseJsonl(await readFile(file, 'utf8'), schema, shownAs);
}
