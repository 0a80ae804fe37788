import { z } from 'zod';
import type { ChatMessage, Role } from '../ports/model-client.js';
import type { BriefSections } from './brief.js';
import { promptFor } from './prompts.js';

/**
 * Where each part of a session's opening request goes. Providers cache the longest prefix a
 * request shares with an earlier one, so what repeats must come first:
 * - `shared-first` (transcript format 4): the system message is the role's prompt and then the
 *   objective (the same for every session of the role in a sweep); the first user message opens
 *   with the layout contract (the same under one root's plan), and only then the `## Task` line,
 *   the goal and what is particular to the node. Two sessions of one role share the system
 *   message whole, and the contract too when they serve one tree. Each message carries
 *   `cacheBreak` where its repeated part ends, for providers that need explicit breakpoints.
 * - `task-first` (transcript format 3 and earlier): the request as it was: the `## Task` line,
 *   then goal, objective, contract and particulars in one user message, no breakpoints. Kept
 *   only so a run recorded in it replays under its own layout (see requestLayoutOf).
 */
export const RequestLayout = z.enum(['task-first', 'shared-first']);
export type RequestLayout = z.infer<typeof RequestLayout>;

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
