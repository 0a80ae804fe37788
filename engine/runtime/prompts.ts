import { readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../base/package-root.js';
import type { Role } from '../ports/model-client.js';

const DIR = path.join(packageRoot(import.meta.url), 'engine', 'prompts');
const cache = new Map<Role, string>();

/**
 * The system prompt of a role, read from `engine/prompts/<role>.md` at run time so prompts
 * are reviewed as text, not buried in code. None of them names any oracle or hidden test.
 */
export function promptFor(role: Role): string {
  let text = cache.get(role);
  if (text === undefined) {
    text = readFileSync(path.join(DIR, `${role}.md`), 'utf8');
    cache.set(role, text);
  }
  return text;
}
