import { z } from 'zod';
import type { CheckResult } from '../base/check.js';
import { WorkspacePathError } from '../base/errors.js';
import type { ToolSpec } from '../ports/model-client.js';
import type { Sandbox } from '../ports/sandbox.js';

/** What a tool needs to act: the unit's sandbox, and how the stage runs its current checks. */
export interface ToolContext {
  sandbox: Sandbox;
  /** Runs the unit's current checks (the court's one rule decides each). */
  runChecks: () => Promise<CheckResult[]>;
  /** Limit for one `run_command`. Default 60 000 ms. */
  commandTimeoutMs?: number;
}

export interface ToolOutcome {
  ok: boolean;
  /** What the model is shown. */
  content: string;
  checkPassCount: number | null;
  /** Set by `finish`: the loop ends. */
  finished?: { summary: string; interfaceChanges: string[] };
}

export interface Tool {
  spec: ToolSpec;
  run(args: unknown, ctx: ToolContext): Promise<ToolOutcome>;
}

const MAX_SHOWN = 12_000;
const clip = (s: string) => (s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}\n[... ${s.length - MAX_SHOWN} more characters]` : s);
const result = (content: string, extra: Partial<ToolOutcome> = {}): ToolOutcome => ({
  ok: true, content: clip(content), checkPassCount: null, ...extra,
});

/** JSON Schema for a tool's arguments, without the `$schema` key strict endpoints reject. */
function parametersOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}

function defineTool<S extends z.ZodType>(name: string, description: string, schema: S, run: (args: z.infer<S>, ctx: ToolContext) => Promise<ToolOutcome>): Tool {
  return {
    spec: { name, description, parameters: parametersOf(schema) },
    async run(raw, ctx) {
      const parsed = schema.safeParse(raw);
      if (!parsed.success) {
        return { ...result(`invalid arguments for ${name}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`), ok: false };
      }
      try {
        return await run(parsed.data, ctx);
      } catch (error) {
        // A bad path or a missing file is the model's mistake to see and fix, not a crash.
        if (error instanceof WorkspacePathError || (error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') {
          return { ...result(`${name} failed: ${(error as Error).message}`), ok: false };
        }
        throw error;
      }
    },
  };
}

export const readFileTool = defineTool('read_file', 'Read a text file in the workspace.', z.object({ path: z.string() }), async ({ path }, ctx) =>
  result(await ctx.sandbox.readFile(path)),
);

export const listFilesTool = defineTool('list_files', 'List files under a workspace directory (default: the root).', z.object({ dir: z.string().optional() }), async ({ dir }, ctx) => {
  const files = await ctx.sandbox.listFiles(dir ?? '.');
  return result(files.length ? files.join('\n') : '(no files)');
});

export const writeFileTool = defineTool('write_file', 'Create or replace a text file in the workspace.', z.object({ path: z.string(), content: z.string() }), async ({ path, content }, ctx) => {
  const before = await ctx.sandbox.readFile(path).catch(() => null);
  await ctx.sandbox.writeFile(path, content);
  return result(before !== content ? `wrote ${path} (${content.length} characters)` : `${path} unchanged`);
});

export const runCommandTool = defineTool(
  'run_command',
  'Run a shell command in the workspace (no network). Returns exit code and output.',
  z.object({ command: z.string(), timeout_s: z.number().positive().max(600).optional() }),
  async ({ command, timeout_s }, ctx) => {
    const r = await ctx.sandbox.exec(command, { timeoutMs: timeout_s ? timeout_s * 1000 : (ctx.commandTimeoutMs ?? 60_000) });
    const status = r.timedOut ? 'timed out' : `exit ${r.exitCode}`;
    return result(`${status}\n${r.stdout}${r.stderr ? `\n[stderr]\n${r.stderr}` : ''}`);
  },
);

export const runChecksTool = defineTool('run_checks', 'Run every check of this unit and report which pass.', z.object({}), async (_args, ctx) => {
  const results = await ctx.runChecks();
  const passed = results.filter((r) => r.passed).length;
  const lines = results.map((r) => `${r.passed ? 'PASS' : 'FAIL'} ${r.id}${r.passed ? '' : `: ${r.output.slice(-400)}`}`);
  return result(`${passed}/${results.length} checks pass\n${lines.join('\n')}`, { checkPassCount: passed });
});

export const finishTool = defineTool(
  'finish',
  'Declare the work finished (or stuck) with a summary, and any interface changes you made.',
  z.object({ summary: z.string(), interface_changes: z.array(z.string()).optional() }),
  async ({ summary, interface_changes }) => result('finished', { finished: { summary, interfaceChanges: interface_changes ?? [] } }),
);

/** What a worker or merger may use. */
export const WORK_TOOLS: Tool[] = [readFileTool, listFilesTool, writeFileTool, runCommandTool, runChecksTool, finishTool];
/** What a verifier may use: nothing that writes. */
export const READ_ONLY_TOOLS: Tool[] = [readFileTool, listFilesTool, runChecksTool];
/**
 * What a merge reviewer may use: it may run commands (a disconfirming command is how a review
 * tests a seam), always in a detached copy, so nothing it does reaches the graded tree.
 */
export const REVIEW_TOOLS: Tool[] = [readFileTool, listFilesTool, runCommandTool, runChecksTool];
