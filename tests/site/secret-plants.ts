import { expect } from 'vitest';
import { runFiles } from '../../harness/index.js';
import type { Sample } from './secret-samples.js';

/**
 * How a test plants a secret in a valid run file of each published kind (a message or string
 * field, the file still parsing with its schema), and where in that field the token stands.
 * Shared by the scan's unit tests and make_site's end-to-end cases.
 */

/** A published kind: a valid file of it, a way to plant text in one of its string fields, and its schema. */
export interface Published {
  kind: string;
  file: string;
  /** Plants `payload` (already in the file's own encoding for XML) and returns the file's text. */
  plant(content: string, payload: string): string;
  validate(content: string): void;
  xml?: boolean;
}

export const TRANSCRIPT = 'cells/cap1-rep1-gated/transcripts/root.1%2Fworker%2F1.jsonl';
const jsonLines = (content: string, edit: (record: any) => void) => {
  const lines = content.split('\n');
  const record = JSON.parse(lines[0]!);
  edit(record);
  lines[0] = JSON.stringify(record);
  return lines.join('\n');
};
const eachLine = (content: string, parse: (v: unknown) => unknown) => content.split('\n').filter(Boolean).forEach((l) => parse(JSON.parse(l)));

export const PUBLISHED: Published[] = [
  {
    kind: 'transcript',
    file: TRANSCRIPT,
    // The user message of the first request: what a session page shows as the task.
    plant: (c, p) => jsonLines(c, (r) => (r.added[1].content = p)),
    validate: (c) => eachLine(c, (v) => runFiles.TranscriptLine.parse(v)),
  },
  {
    kind: 'events',
    file: 'cells/cap1-rep1-gated/events.jsonl',
    plant: (c, p) => jsonLines(c, (r) => (r.goal = p)),
    validate: (c) => eachLine(c, (v) => runFiles.EngineEvent.parse(v)),
  },
  {
    kind: 'result',
    file: 'cells/cap2-rep1-ungated/result.json',
    plant: (c, p) => `${JSON.stringify({ ...JSON.parse(c), reasons: [p] }, null, 2)}\n`,
    validate: (c) => runFiles.NodeResult.parse(JSON.parse(c)),
  },
  {
    kind: 'grade',
    file: 'cells/cap1-rep1-ungated/grade.json',
    plant: (c, p) => {
      const grade = JSON.parse(c);
      grade.requirements[0].title = p;
      return `${JSON.stringify(grade, null, 2)}\n`;
    },
    validate: (c) => runFiles.GradeResult.parse(JSON.parse(c)),
  },
  {
    kind: 'report',
    file: 'report/report.json',
    plant: (c, p) => `${JSON.stringify({ ...JSON.parse(c), caveats: [{ kind: 'recorded', text: p }] }, null, 2)}\n`,
    validate: (c) => runFiles.Report.parse(JSON.parse(c)),
  },
  {
    kind: 'chart',
    file: 'report/charts/cost.svg',
    plant: (c, p) => c.replace('</svg>', `<text x="1" y="1">${p}</text></svg>`),
    // Well-formed enough to render: one root, the planted text inside it.
    validate: (c) => expect(c.trim()).toMatch(/^<svg[\s\S]*<\/svg>$/),
    xml: true,
  },
];

export const xmlEscape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const uEscape = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Where a token stands, as a string field's value (JSON kinds) or as text in an element (the chart). */
export const PLACEMENTS: Array<{ name: string; json: (s: Sample) => string; xml: (s: Sample) => string }> = [
  { name: 'plain', json: (s) => `PLANTED ${s.text}`, xml: (s) => xmlEscape(`PLANTED ${s.text}`) },
  { name: 'after \\n', json: (s) => `PLANTED note\n${s.tight}`, xml: (s) => `PLANTED note&#10;${xmlEscape(s.tight)}` },
  { name: 'after \\t', json: (s) => `PLANTED note\t${s.tight}`, xml: (s) => `PLANTED note&#9;${xmlEscape(s.tight)}` },
  // JSON inside the JSON string: in the file, `\\n` before the token (and `\\\"` around its quotes).
  { name: 'double-encoded after \\\\n', json: (s) => `PLANTED ${JSON.stringify({ note: `x\n${s.tight}` })}`, xml: (s) => `PLANTED note\\n${xmlEscape(s.tight)}` },
  // The token's first character itself escaped inside the inner JSON: `\\u0073k-...` in the file.
  { name: 'double-encoded \\\\uXXXX', json: (s) => `PLANTED {"note":"${uEscape(s.tight[0]!)}${JSON.stringify(s.tight.slice(1)).slice(1, -1)}"}`, xml: (s) => `PLANTED &amp;#${s.tight.charCodeAt(0)};${xmlEscape(s.tight.slice(1))}` },
];

/** The line the secret starts on: where its first line stands as written, else (escaped) the planted field's line. */
export function lineOf(text: string, secret: string): number {
  const at = text.indexOf(secret.split('\n')[0]!);
  return text.slice(0, at >= 0 ? at : text.indexOf('PLANTED')).split('\n').length;
}


/** The payload of `sample` at `placement` for the file kind `published`. */
export const payloadFor = (published: Published, placement: (typeof PLACEMENTS)[number], sample: Sample) => (published.xml ? placement.xml(sample) : placement.json(sample));
