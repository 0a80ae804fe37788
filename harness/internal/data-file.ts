import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { z } from 'zod';
import { pathText, schemaProblems, shown } from './schema-problems.js';
import { looksLikeSecret } from './secret-shape.js';
import { parseYaml, type YamlPath, type YamlSource } from './yaml-document.js';

export type DataFileResult<T> = { ok: true; value: T; source: YamlSource } | { ok: false; lines: string[] };

/** `file:line: path: text`, the shape compilers use, so editors and terminals can jump to it. */
export function problemLine(shownAs: string, source: YamlSource | undefined, path: YamlPath, text: string): string {
  const line = source?.lineOf(path);
  return `${shownAs}${line ? `:${line}` : ''}: ${pathText(path)}: ${text}`;
}

export interface DataFileOptions<S extends z.ZodType> {
  /** The path as the user wrote it; every message names the file this way. */
  shownAs: string;
  schema: S;
  /** What the file is, for messages ("manifest", "provider configuration"). */
  what: string;
  /** Where a person can copy a complete file from, for an empty or unreadable one. */
  starter: string;
  /**
   * Where the path came from when the user did not type it (e.g. `RDH_PROVIDERS`), so an error
   * about the path names what to correct. Default: none (the path was an argument or a flag).
   */
  origin?: string;
}

/**
 * Largest data file read: 1 MiB. A manifest or provider configuration is a page of settings
 * (the shipped ones are about 3 KiB); anything near this is not one, and reading it whole would
 * only let a hostile file spend memory and fill the terminal with its echoes.
 */
export const MAX_DATA_FILE_BYTES = 1024 * 1024;

/** Reads a regular file of at most MAX_DATA_FILE_BYTES, or says why not (in words for the message). */
async function readBounded(file: string): Promise<{ text: string } | { why: string; notData?: true }> {
  let handle;
  try {
    // Non-blocking, so a FIFO is refused below instead of waiting for a writer forever.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { why: code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'ENAMETOOLONG' ? 'the path is too long' : `it cannot be opened (${code ?? 'unknown error'})` };
  }
  try {
    const info = await handle.stat();
    // A FIFO or device would block or never end; only a regular file is data.
    if (info.isDirectory()) return { why: 'it is a folder' };
    if (!info.isFile()) return { why: 'it is not a regular file', notData: true };
    if (info.size > MAX_DATA_FILE_BYTES) return { why: `it is ${info.size} bytes, above the limit of ${MAX_DATA_FILE_BYTES} (1 MiB)`, notData: true };
    // Read one byte past the limit, so a file that grew after the check is still caught.
    const buffer = Buffer.alloc(MAX_DATA_FILE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_DATA_FILE_BYTES) return { why: `it is above the limit of ${MAX_DATA_FILE_BYTES} bytes (1 MiB)`, notData: true };
    }
    return { text: buffer.subarray(0, length).toString('utf8') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { why: code === 'EISDIR' ? 'it is a folder' : `it cannot be read (${code ?? 'unknown error'})` };
  } finally {
    await handle.close();
  }
}

/** A path as messages show it: as the user wrote it, unless it is a key pasted where a path belongs (RDH_PROVIDERS=sk-...). */
export function shownPath(file: string): string {
  return looksLikeSecret(file) ? '(a path that looks like an API key; not shown)' : file;
}

/**
 * Reads a YAML data file and validates it. Every way it can be wrong comes back as lines, one
 * per problem, each locating the field and naming the fix; nothing is thrown, so each loader
 * raises its own error class.
 */
export async function readDataFile<S extends z.ZodType>(file: string, options: DataFileOptions<S>): Promise<DataFileResult<z.output<S>>> {
  const { schema, what, starter, origin } = options;
  const shownAs = shownPath(options.shownAs);
  const read = await readBounded(file);
  if ('why' in read) {
    const fix = [read.notData ? `a ${what} is a page of settings, so this is not one` : origin ? '' : 'check the path', origin ? `correct ${origin} or unset it` : ''].filter(Boolean).join('; ');
    return { ok: false, lines: [`${shownAs}${origin ? ` (from ${origin})` : ''}: cannot read the ${what}: ${read.why}; ${fix} (${starter})`] };
  }
  const parsed = parseYaml(read.text);
  if (!parsed.ok) return { ok: false, lines: parsed.problems.map((p) => `${shownAs}:${p.line}:${p.column}: ${p.text}`) };
  const { source } = parsed;
  if (source.data === null || source.data === undefined) {
    return { ok: false, lines: [`${shownAs}: the ${what} is empty; write its fields (${starter})`] };
  }
  if (typeof source.data !== 'object' || Array.isArray(source.data)) {
    return { ok: false, lines: [problemLine(shownAs, source, [], `expected a mapping of fields, got ${shown(source.data)}; write the ${what} as \`field: value\` lines (${starter})`)] };
  }
  const result = schema.safeParse(source.data);
  if (result.success) return { ok: true, value: result.data, source };
  return { ok: false, lines: schemaProblems(result.error, schema, source.data).map((p) => problemLine(shownAs, source, p.path, p.text)) };
}
