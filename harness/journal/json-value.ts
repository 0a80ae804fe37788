import { z } from 'zod';

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const MAX_DEPTH = 256;

function isJson(value: unknown, depth: number): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(value)) return value.every((item) => isJson(item, depth + 1));
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      for (const key in value) if (!isJson((value as Record<string, unknown>)[key], depth + 1)) return false;
      return true;
    }
    default:
      return false;
  }
}

/**
 * OPAQUE payloads: any JSON value (finite numbers, plain objects, at most 256 levels deep),
 * checked by one walk. zod's own `z.json()` tries a union at every node, which made a
 * planned tree cost about a hundred times a plain event to validate on resume.
 */
export const JsonData = z.custom<JsonValue>((value) => isJson(value, 0), { message: 'is not JSON data (finite numbers, strings, booleans, null, arrays and plain objects only)' });
