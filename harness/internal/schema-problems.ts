import { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { looksLikeSecret, REDACTED } from './secret-shape.js';
import type { YamlPath } from './yaml-document.js';

/** One thing wrong with a data file, located by field path and phrased as what is wrong and the fix. */
export interface SchemaProblem {
  path: PropertyKey[];
  text: string;
}

/** Longest key a message repeats whole; a longer one (an unknown 50 MB key) is cut. */
const KEY_SHOWN = 64;

/** A key as a message shows it: never a pasted credential, never unbounded. */
function keyText(key: string): string {
  if (looksLikeSecret(key)) return '(a key that looks like an API key; not shown)';
  return key.length > KEY_SHOWN ? `${key.slice(0, KEY_SHOWN - 3)}...` : key;
}

/** `depth_caps[1]`, `executor.family`, `repetitions.by_cap.3`; the top level is `(top level)`. */
export function pathText(path: YamlPath): string {
  if (path.length === 0) return '(top level)';
  return path.reduce<string>((text, segment, i) => (typeof segment === 'number' ? `${text}[${segment}]` : i === 0 ? keyText(String(segment)) : `${text}.${keyText(String(segment))}`), '');
}

/**
 * Fields whose name says they hold or name a credential (`api_key_env`, `token`; not
 * `token_ceiling`). Their values are never repeated in a message, even when they do not look
 * like a key: a heuristic that misses one format would otherwise print it.
 */
export const CREDENTIAL_FIELD = /(key|token|secret|passw(or)?d|credentials?|auth)(_(env|var|name))?$/i;

function isCredentialPath(path: YamlPath): boolean {
  const field = [...path].reverse().find((segment) => typeof segment === 'string');
  return typeof field === 'string' && CREDENTIAL_FIELD.test(field);
}

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  format?: string;
}
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const WRAPPERS = new Set(['default', 'optional', 'nullable', 'readonly', 'prefault', 'catch']);

interface Field {
  /** The schema with defaults, optionals and transforms peeled off. */
  core: z.ZodType;
  description?: string;
  examples?: unknown[];
}

/** Peels wrappers off a schema, keeping the first description and examples found on the way in. */
function peel(schema: z.ZodType): Field {
  const field: Field = { core: schema };
  let current: z.ZodType | undefined = schema;
  while (current) {
    const meta = z.globalRegistry.get(current) as { description?: string; examples?: unknown[] } | undefined;
    field.description ??= meta?.description;
    field.examples ??= meta?.examples;
    field.core = current;
    const def = defOf(current);
    current = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
  }
  return field;
}

/** The schema that governs `path`, or undefined when the path leaves the schema (an unknown field). */
function fieldAt(root: z.ZodType, path: YamlPath): Field | undefined {
  let field = peel(root);
  for (const segment of path) {
    const def = defOf(field.core);
    const next = def.type === 'object' ? def.shape?.[String(segment)] : def.type === 'array' ? def.element : def.type === 'record' ? def.valueType : undefined;
    if (!next) return undefined;
    field = peel(next);
  }
  return field;
}

function valueAt(input: unknown, path: YamlPath): unknown {
  let value = input;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[segment];
  }
  return value;
}

/** A value as YAML flow text, the way a person would type it into the file. */
export function flow(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(flow).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${k}: ${flow(v)}`).join(', ')}}`;
  if (typeof value === 'string') {
    // Plain when YAML would read it back as the same text; quoted when it would become a number, boolean or null.
    const plain = /^[A-Za-z0-9_./][A-Za-z0-9._/-]*$/.test(value) && Number.isNaN(Number(value)) && !/^(true|false|null|yes|no|on|off|~)$/i.test(value);
    return plain ? value : JSON.stringify(value);
  }
  return String(value);
}

/** What was found, for "got ..."; never echoes something that looks like a key. */
export function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'an empty value';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') {
    if (looksLikeSecret(value)) return REDACTED;
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 37)}...` : value);
  }
  // As YAML spells them, so a message never prints Infinity or NaN as if it were a figure.
  if (typeof value === 'number' && !Number.isFinite(value)) return Number.isNaN(value) ? '.nan (not a number)' : `${value > 0 ? '' : '-'}.inf (infinity)`;
  return String(value);
}

/** What was found at a field, for "got ...": nothing of a credential field's value but its kind. */
function shownAt(path: YamlPath, value: unknown): string {
  if (!isCredentialPath(path) || value === undefined || value === null || typeof value === 'object') return shown(value);
  return `${typeof value === 'string' ? 'text' : `a ${typeof value}`} (not shown: this field names a credential)`;
}

const EXPECTED: Record<string, string> = {
  number: 'a number',
  int: 'a whole number',
  string: 'text',
  array: 'a list',
  object: 'a mapping',
  record: 'a mapping',
  boolean: 'true or false',
};

/** The nearest example up the path, written as the line that would fix it. */
function fixFor(root: z.ZodType, path: YamlPath): string {
  for (let end = path.length; end >= 0; end--) {
    const prefix = path.slice(0, end);
    const field = fieldAt(root, prefix);
    const key = [...prefix].reverse().find((segment) => typeof segment === 'string');
    if (field?.examples?.length && key !== undefined) return `e.g. ${String(key)}: ${flow(field.examples[0])}`;
  }
  return 'see the schema for the fields this file takes';
}

function numberBound(issue: { minimum?: unknown; maximum?: unknown; inclusive?: boolean }, integer: boolean, small: boolean): string {
  const bound = Number(small ? issue.minimum : issue.maximum);
  if (small && bound === 0 && !issue.inclusive) return integer ? 'must be a positive whole number' : 'must be positive';
  if (small) return issue.inclusive ? `must be at least ${bound}` : `must be greater than ${bound}`;
  return issue.inclusive ? `must be at most ${bound}` : `must be less than ${bound}`;
}

/** A message a schema wrote for itself (zod's own defaults start "Invalid", "Too big", "Too small" or "Unrecognized"). */
const isOwnMessage = (message: string): boolean => !/^(Invalid|Too (big|small)|Unrecognized)\b/.test(message);

function describe(issue: z.core.$ZodIssue, root: z.ZodType, input: unknown): SchemaProblem[] {
  const path = issue.path;
  const got = valueAt(input, path);
  const seen = shownAt(path, got);
  const at = (text: string, where: PropertyKey[] = path): SchemaProblem => ({ path: where, text });
  const fix = fixFor(root, path);
  const parentIsMapping = path.length > 0 && typeof valueAt(input, path.slice(0, -1)) === 'object';

  if (issue.code === 'custom') return [at(issue.message)];
  if (issue.code === 'invalid_union') {
    // The branch written in the value's own type (a string read as bounds, say) says what is wrong; the others only that the type differs.
    const branch = issue.errors.find((inner) => inner.length > 0 && !inner.every((i) => i.code === 'invalid_type' && i.path.length === 0));
    if (branch) return branch.flatMap((inner) => describe({ ...inner, path: [...path, ...inner.path] } as z.core.$ZodIssue, root, input));
  }
  if (issue.code === 'unrecognized_keys') {
    const known = Object.keys(defOf(fieldAt(root, path)?.core ?? root).shape ?? {});
    return issue.keys.map((key) => {
      if (/(key|token|secret|password)$/i.test(key)) {
        return at('unknown field, and it looks like a credential; never write a key in a file: export it as an environment variable and name the variable in the provider configuration (api_key_env)', [...path, key]);
      }
      const guess = didYouMean(key, known);
      return at(guess ? `unknown field; did you mean "${guess}"? Rename or remove it` : `unknown field; remove it (fields here: ${known.join(', ')})`, [...path, key]);
    });
  }
  if (got === undefined && parentIsMapping) return [at(`missing; add it, ${fix}`)];
  if (issue.code === 'invalid_type') {
    if (issue.expected === 'int' && typeof got === 'number') return [at(`must be a whole number, got ${seen}; ${fix}`)];
    const core = fieldAt(root, path)?.core;
    const expected = issue.expected === 'number' && core && defOf(core).format?.includes('int') ? 'int' : issue.expected;
    return [at(`expected ${EXPECTED[expected] ?? expected}, got ${seen}; ${fix}`)];
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') {
    const small = issue.code === 'too_small';
    if (isOwnMessage(issue.message)) return [at(issue.origin === 'string' ? `${issue.message}; ${fix}` : `${issue.message}, got ${seen}; ${fix}`)];
    if (issue.origin === 'array') {
      const what = small ? (Number(issue.minimum) === 1 ? 'must not be empty' : `must list at least ${Number(issue.minimum)} items`) : `may list at most ${Number(issue.maximum)} items`;
      return [at(`${what}; ${fix}`)];
    }
    if (issue.origin === 'string') return [at(`${small ? 'must not be empty' : `must be at most ${Number(issue.maximum)} characters`}; ${fix}`)];
    const core = fieldAt(root, path)?.core;
    const integer = core !== undefined && Boolean(defOf(core).format?.includes('int'));
    return [at(`${numberBound(issue, integer, small)}, got ${seen}; ${fix}`)];
  }
  if (issue.code === 'invalid_value') {
    const options = issue.values.map((v) => flow(v));
    if (options.length === 1) return [at(`expected ${options[0]}, got ${seen}; ${fix}`)];
    const guess = typeof got === 'string' ? didYouMean(got, options) : undefined;
    return [at(`expected one of ${options.join(', ')}, got ${seen}; ${guess ? `did you mean ${guess}?` : fix}`)];
  }
  if (issue.code === 'invalid_key') {
    const why = issue.issues.map((inner) => inner.message).find(isOwnMessage) ?? 'is not allowed as a key here';
    return [at(`${shown(path.at(-1))} ${why}; ${fix}`)];
  }
  // A URL may carry a user name and password, so it is never repeated.
  if (issue.code === 'invalid_format' && issue.format === 'url') return [at(`must be an http:// or https:// URL; ${fix}`)];
  if (issue.code === 'invalid_format') return [at(`${seen} ${isOwnMessage(issue.message) ? issue.message : 'does not have the expected form'}; ${fix}`)];
  return [at(`${issue.message}; ${fix}`)];
}

/**
 * Turns a zod error into one problem per mistake, each naming what was wrong and how to fix
 * it, with examples taken from the schema's own metadata so the advice cannot drift from it.
 */
export function schemaProblems(error: z.ZodError, root: z.ZodType, input: unknown): SchemaProblem[] {
  return error.issues.flatMap((issue) => describe(issue, root, input));
}
