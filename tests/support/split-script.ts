import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { ModelRequest } from '../../engine/index.js';
import type { FakeCommand } from './fake-sandbox.js';
import { call, json, taskOf, type Handler } from './scripted-model.js';

export interface Piece {
  slug: string;
  prerequisite?: boolean;
  goal?: string;
  /** Claims (objective criteria) it declares; two or more make it oversized, so it may split again. */
  claims?: string[];
}

/** The three checks each piece is held to: its module exists, compiles, and returns its own name. */
export function pieceChecks(slug: string) {
  return [
    { id: `${slug}-value`, description: `value() returns ${slug}`, command: `python3 -c "import ${slug}; assert ${slug}.value() == '${slug}'"` },
    { id: `${slug}-file`, description: `${slug}.py exists`, command: `test -f ${slug}.py` },
    { id: `${slug}-compiles`, description: `${slug}.py compiles`, command: `python3 -m py_compile ${slug}.py` },
  ];
}

/** The three seam checks of an assembly: main.py joins the pieces, and they sit at the root. */
export function seamChecks(slugs: string[]) {
  return [
    { id: 'main-runs', description: 'main joins pieces', command: `test "$(python3 main.py)" = "${slugs.join(' ')}"` },
    { id: 'main-exists', description: 'main.py exists', command: 'test -f main.py' },
    { id: 'pieces-at-root', description: 'every piece is at the root', command: slugs.map((s) => `test -f ${s}.py`).join(' && ') },
  ];
}

const COPY_CHILDREN = 'for d in .children/*/; do cp "$d"*.py . ; done';

/**
 * A split goal: each piece writes one module `<slug>.py` defining `value()`; the merger copies
 * them up and writes `main.py` joining them. The same script drives a real sandbox and the
 * fake one ({@link splitCommands} answers its commands by reading files).
 */
export function splitHandlers(options: {
  subtasks: Piece[];
  assumptions?: string[];
  layout?: string | null;
  childAssumptions?: Record<string, string[]>;
  worker?: Handler;
  merger?: Handler;
}): Record<string, Handler> {
  const slugOf = (req: ModelRequest) => {
    const ids = req.nodeId.split('.').slice(1).map(Number);
    return ids.length ? options.subtasks[ids[0]! - 1]!.slug : 'root';
  };
  return {
    planner: () =>
      json({
        mode: 'split',
        assumptions: options.assumptions ?? ['pieces are plain modules at the root'],
        layout: options.layout === undefined ? `${options.subtasks.map((s) => `${s.slug}.py: def value() -> str`).join('\n')}\nmain.py: prints every value() joined by spaces` : options.layout,
        subtasks: options.subtasks.map((s) => ({ slug: s.slug, goal: s.goal ?? `Build the ${s.slug} piece`, prerequisite: s.prerequisite ?? false, claims: s.claims ?? [`${s.slug} works`] })),
      }),
    checker: (req) => {
      // The root only ever writes (or rewrites) seam checks.
      if (taskOf(req).startsWith('write integration checks') || req.nodeId === 'root') return json({ checks: seamChecks(options.subtasks.map((s) => s.slug)) });
      const slug = slugOf(req);
      return json({ assumptions: options.childAssumptions?.[slug] ?? [], checks: pieceChecks(slug) });
    },
    worker:
      options.worker ??
      ((req, turn) => {
        const slug = slugOf(req);
        return [
          { toolCalls: [call('write_file', { path: `${slug}.py`, content: `def value():\n    return ${JSON.stringify(slug)}\n` })] },
          { toolCalls: [call('finish', { summary: `wrote ${slug}.py` })] },
        ][Math.min(turn, 1)]!;
      }),
    merger:
      options.merger ??
      ((_req, turn) =>
        [
          {
            toolCalls: [
              call('run_command', { command: COPY_CHILDREN }),
              call('write_file', {
                path: 'main.py',
                content: `${options.subtasks.map((s) => `import ${s.slug}`).join('\n')}\nprint(" ".join([${options.subtasks.map((s) => `${s.slug}.value()`).join(', ')}]))\n`,
              }),
            ],
          },
          { toolCalls: [call('finish', { summary: 'assembled', interface_changes: ['main.py imports each piece by module name'] })] },
        ][Math.min(turn, 1)]!),
    verifier: (req) => (taskOf(req).startsWith('are the checks adequate') ? json({ adequate: true }) : json({ verdict: 'DONE', findings: [] })),
    reviewer: () => json({ accept: true, findings: [] }),
    self_reviewer: () => json({ accept: true, findings: [] }),
    drift_judge: () => json({ drift: 0, impossible: false, reason: '' }),
  };
}

/** FAKE answers for {@link splitHandlers}'s commands: judged by reading the workspace, nothing runs. */
export function splitCommands(slugs: string[]): Record<string, FakeCommand> {
  const table: Record<string, FakeCommand> = {
    [COPY_CHILDREN]: async (ws) => {
      const kids = await readdir(path.join(ws.dir, '.children')).catch(() => []);
      for (const kid of kids) {
        for (const f of (await readdir(path.join(ws.dir, '.children', kid))).filter((n) => n.endsWith('.py'))) {
          await ws.write(f, (await ws.read(path.join('.children', kid, f)))!);
        }
      }
      return { exitCode: 0 };
    },
  };
  const has = async (ws: Parameters<FakeCommand>[0], f: string) => ({ exitCode: (await ws.has(f)) ? 0 : 1 });
  for (const slug of slugs) {
    const [value, file, compiles] = pieceChecks(slug);
    table[value!.command] = async (ws) => ({ exitCode: (await ws.read(`${slug}.py`))?.includes(`return "${slug}"`) ? 0 : 1 });
    table[file!.command] = (ws) => has(ws, `${slug}.py`);
    table[compiles!.command] = (ws) => has(ws, `${slug}.py`);
  }
  const [runs, exists, atRoot] = seamChecks(slugs);
  const allAtRoot = async (ws: Parameters<FakeCommand>[0]) => (await Promise.all(slugs.map((s) => ws.has(`${s}.py`)))).every(Boolean);
  table[runs!.command] = async (ws) => ({ exitCode: (await ws.has('main.py')) && (await allAtRoot(ws)) ? 0 : 1 });
  table[exists!.command] = (ws) => has(ws, 'main.py');
  table[atRoot!.command] = async (ws) => ({ exitCode: (await allAtRoot(ws)) ? 0 : 1 });
  return table;
}
