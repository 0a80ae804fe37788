import type { ChatMessage, RequestLayout, Role } from '../ports/model-client.js';
import type { BriefSections } from './brief.js';
import { promptFor } from './prompts.js';

/** What repeats first (see {@link RequestLayout}). */
export const DEFAULT_REQUEST_LAYOUT: RequestLayout = 'shared-first';

export interface Opening {
  role: Role;
  brief: BriefSections;
  /** What the stage says before the goal: its `## Task: ...` line and the like, ending in a blank line. Default none. */
  head?: string;
  /** What it says after the brief: checks, findings, files, the reply it asks for. Default none. */
  tail?: string;
}

/** The first two messages of a session (system, then user) in the given layout. */
export function openingMessages(layout: RequestLayout, o: Opening): [ChatMessage, ChatMessage] {
  const prompt = promptFor(o.role);
  const { goal, objective, contract, particulars } = o.brief;
  const head = o.head ?? '';
  const tail = o.tail ?? '';
  if (layout === 'task-first') {
    const body = [goal, objective, contract, ...particulars].filter((s): s is string => s !== null).join('\n\n');
    return [{ role: 'system', content: prompt }, { role: 'user', content: `${head}${body}${tail}` }];
  }
  const system = objective ? `${prompt}\n\n${objective}` : prompt;
  const shared = contract ? `${contract}\n\n` : '';
  const user = `${shared}${head}${[goal, ...particulars].join('\n\n')}${tail}`;
  return [
    { role: 'system', content: system, cacheBreak: system.length },
    { role: 'user', content: user, ...(shared ? { cacheBreak: shared.length } : {}) },
  ];
}
