import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ENGINE = path.resolve(import.meta.dirname, '../../engine');

/**
 * The engine's rooms, lowest first. A file may import its own room or a lower one, never a
 * higher one, and never a sibling room of the same level (adapters and runtime do not know
 * each other): so the data types every port shares live where no import runs upward.
 */
const LEVEL: Record<string, number> = { base: 0, ports: 1, adapters: 2, runtime: 2, court: 3, tree: 4, 'index.ts': 5 };

export function roomOf(rel: string): string {
  return rel.split('/')[0]!;
}

/** Upward and sideways imports between rooms; an empty list means the layout holds. */
export function layoutViolations(edges: Array<{ from: string; to: string }>): string[] {
  const bad: string[] = [];
  for (const { from, to } of edges) {
    const [a, b] = [roomOf(from), roomOf(to)];
    if (!(a in LEVEL)) bad.push(`${from}: not in a room (${Object.keys(LEVEL).join(', ')})`);
    else if (!(b in LEVEL)) bad.push(`${from} -> ${to}: target is not in a room`);
    else if (a !== b && LEVEL[b]! >= LEVEL[a]!) bad.push(`${from} -> ${to}: ${a}/ may not import ${b}/ (${LEVEL[b]! > LEVEL[a]! ? 'upward' : 'sideways'})`);
  }
  return bad;
}

async function engineEdges(): Promise<Array<{ from: string; to: string }>> {
  const files = (await readdir(ENGINE, { recursive: true })).filter((f) => f.endsWith('.ts'));
  const edges: Array<{ from: string; to: string }> = [];
  for (const file of files) {
    const text = await readFile(path.join(ENGINE, file), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
      edges.push({ from: file, to: path.normalize(path.join(path.dirname(file), m[1]!)).replace(/\.js$/, '.ts') });
    }
  }
  return edges;
}

describe('engine layout', () => {
  it('has rooms whose imports only run downward', async () => {
    const edges = await engineEdges();
    expect(edges.length).toBeGreaterThan(100);
    expect(layoutViolations(edges)).toEqual([]);
  });

  it('would catch an upward or sideways import', () => {
    expect(
      layoutViolations([
        { from: 'ports/events.ts', to: 'court/gate.ts' },
        { from: 'runtime/tools.ts', to: 'adapters/docker-sandbox.ts' },
        { from: 'court/gate.ts', to: 'base/verdict.ts' },
        { from: 'loose.ts', to: 'base/verdict.ts' },
      ]),
    ).toMatchInlineSnapshot(`
      [
        "ports/events.ts -> court/gate.ts: ports/ may not import court/ (upward)",
        "runtime/tools.ts -> adapters/docker-sandbox.ts: runtime/ may not import adapters/ (sideways)",
        "loose.ts: not in a room (base, ports, adapters, runtime, court, tree, index.ts)",
      ]
    `);
  });
});
