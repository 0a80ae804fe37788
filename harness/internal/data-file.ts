import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { pathText, schemaProblems, shown } from './schema-problems.js';
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
}

/**
 * Reads a YAML data file and validates it. Every way it can be wrong comes back as lines, one
 * per problem, each locating the field and naming the fix; nothing is thrown, so each loader
 * raises its own error class.
 */
export async function readDataFile<S extends z.ZodType>(file: string, options: DataFileOptions<S>): Promise<DataFileResult<z.output<S>>> {
  const { shownAs, schema, what, starter } = options;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (error as Error).message;
    return { ok: false, lines: [`${shownAs}: cannot read the ${what}: ${why}; check the path (${starter})`] };
  }
  const parsed = parseYaml(text);
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
