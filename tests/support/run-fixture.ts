import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT, SWEEP_JOURNAL, writeReport, type CellMeasurement, type JournalPins, type SweepEvent, type SweepEventInput } from '../../harness/index.js';
import { runFiles } from '../../harness/index.js';

/**
 * FIXTURE, not a recording: a small run folder written from the run-file schemas, so the
 * results site can be built and tested before `harness record` produces real runs. Every file
 * is parsed with the schema the harness reads it with before it is written, and the report is
 * made by the real `harness report` code (writeReport) from the fixture's journal. Every goal
 * and message says FIXTURE, so a site built from it can never be mistaken for a measurement.
 *
 * Layout and content: the cells of manifests/smoke.yaml (caps 1 and 2, both arms, one
 * repetition); each cell a full binary tree to its cap; every node with a planner session,
 * leaves with checker, worker and verifier sessions (the worker writes a file and runs its
 * tests through tool calls), splitting nodes with merger and reviewer sessions.
 */

const { EngineEvent, EVENT_VERSION, TRANSCRIPT_VERSION, TranscriptLine, NodeResult, GradeResult, runPaths } = runFiles;
type EngineEvent = runFiles.EngineEvent;
type TranscriptLine = runFiles.TranscriptLine;
type NodeResult = runFiles.NodeResult;
type GradeResult = runFiles.GradeResult;

export interface RunFixtureOptions {
  /** The manifest recorded. Default manifests/smoke.yaml. */
  manifest?: string;
  /**
   * Makes the first cell's first worker session long: `rounds` more tool calls, each answered
   * with `outputChars` characters, every request carrying the whole history (as a real one
   * does). Default none.
   */
  bulkySession?: { rounds: number; outputChars: number };
}

export interface FixtureSession {
  cell: string;
  sessionId: string;
  nodeId: string;
  file: string;
}

export interface RunFixture {
  dir: string;
  cells: string[];
  sessions: FixtureSession[];
}

const T0 = Date.parse('2026-01-02T03:00:00.000Z');
const hex = (text: string, n = 64) => createHash('sha256').update(text).digest('hex').slice(0, n);
const REQUIREMENTS = Array.from({ length: 42 }, (_, i) => `R${String(i + 1).padStart(2, '0')}`);
const EXECUTOR = { model: 'sim-executor', family: 'sim-alpha' };
const REVIEWER = { model: 'sim-reviewer', family: 'sim-beta' };

interface Planned {
  id: string;
  depth: number;
  requirements: string[];
  children: Planned[];
}

/** A full binary tree to `cap`, requirements cut in contiguous halves. */
function plan(id: string, depth: number, cap: number, requirements: string[]): Planned {
  if (depth >= cap || requirements.length < 2) return { id, depth, requirements, children: [] };
  const half = Math.ceil(requirements.length / 2);
  return { id, depth, requirements, children: [requirements.slice(0, half), requirements.slice(half)].map((r, i) => plan(`${id}.${i + 1}`, depth + 1, cap, r)) };
}

class Clock {
  private t = T0;
  now(): string {
    this.t += 1000;
    return new Date(this.t).toISOString();
  }
}

/** Writes one cell's files; returns its measurement and the sessions it wrote. */
async function writeCell(dir: string, cellId: string, options: RunFixtureOptions, clock: Clock, firstCell: boolean) {
  const { cap, arm, repetition } = runFiles.parseCellId(cellId)!;
  const paths = runPaths(dir).cell(cellId);
  await mkdir(paths.transcripts, { recursive: true });
  const events: EngineEvent[] = [];
  const sessions: FixtureSession[] = [];
  const passing = REQUIREMENTS.filter((_, i) => (i + cap + (arm === 'gated' ? 1 : 0)) % 5 !== 0);
  const tree = plan('root', 0, cap, REQUIREMENTS.slice(0, 8 * cap));
  let bulkyDone = !firstCell || !options.bulkySession;

  const emit = (e: Record<string, unknown>) => events.push(EngineEvent.parse({ version: EVENT_VERSION, ts: clock.now(), ...e }));

  async function session(node: Planned, role: runFiles.Role, n: number, who: { model: string; family: string }, turns: Array<{ tool: string; args: Record<string, unknown>; output: string }>, finalText: string) {
    const sessionId = `${node.id}/${role}/${n}`;
    const base = { version: TRANSCRIPT_VERSION, sessionId, nodeId: node.id, role, attempt: n } as const;
    const lines: TranscriptLine[] = [];
    const messages: runFiles.ChatMessage[] = [
      { role: 'system', content: `FIXTURE ${role} prompt for a synthetic run; no model wrote this.` },
      { role: 'user', content: `FIXTURE goal for ${node.id}: build requirements ${node.requirements.join(', ')} of sqlcsv.` },
    ];
    const usage = { inputTokens: 1200, outputTokens: 150, cachedTokens: 800 };
    // A request line stores only the messages added since the previous call, as the recorder writes it.
    let sent = 0;
    const request = (tools: string[], call: number) => {
      lines.push(TranscriptLine.parse({ type: 'request', ...base, call, ts: clock.now(), model: who.model, sent, added: messages.slice(sent), tools, json: false, maxTokens: 4096, shape: `fixture-${tools.length}` }));
      sent = messages.length;
    };
    const charge = () => emit({ type: 'charge', nodeId: node.id, sessionId, role, model: who.model, family: who.family, attempt: n, usage, costUsd: 0, usageNote: null });
    turns.forEach((turn, i) => {
      const call = { id: `call_${node.id}_${role}_${i}`, name: turn.tool, arguments: JSON.stringify(turn.args) };
      request(['read_file', 'write_file', 'run_command'], i);
      lines.push(TranscriptLine.parse({ type: 'response', ...base, call: i, ts: clock.now(), model: who.model, content: null, toolCalls: [call], usage, usageNote: null, finishReason: 'tool_calls', latencyMs: 40 }));
      charge();
      messages.push({ role: 'assistant', content: null, toolCalls: [call] }, { role: 'tool', toolCallId: call.id, content: turn.output });
      if (role === 'worker') emit({ type: 'tool_call', nodeId: node.id, role, step: i + 1, tool: turn.tool, args: call.arguments, ok: true, result: turn.output.slice(0, 200) });
    });
    request([], turns.length);
    lines.push(TranscriptLine.parse({ type: 'response', ...base, call: turns.length, ts: clock.now(), model: who.model, content: finalText, toolCalls: [], usage, usageNote: null, finishReason: 'stop', latencyMs: 35 }));
    charge();
    const file = paths.transcript(sessionId);
    await writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    sessions.push({ cell: cellId, sessionId, nodeId: node.id, file });
  }

  const checksOf = (node: Planned) => node.requirements.slice(0, 3).map((r) => ({ id: `${r.toLowerCase()}-check`, description: `FIXTURE check that ${r} holds`, command: `python -m pytest -q tests/test_${r.toLowerCase()}.py` }));

  // A merge node's loop as the arm ran it: the gated reviewer is another family and its approval
  // ends the loop; the ungated self-review is never independent and its verdict is never used.
  const fixtureMerge = (attempts: number, results: Array<{ passed: boolean }>, verdict: 'DONE' | 'NOT_DONE'): NonNullable<NodeResult['merge']> => ({
    arm,
    attempts: Array.from({ length: attempts }, (_, i) => ({
      attempt: i + 1,
      reviewer: arm === 'gated'
        ? { kind: 'independent' as const, model: REVIEWER.model, family: REVIEWER.family, independent: true }
        : { kind: 'self' as const, model: EXECUTOR.model, family: EXECUTOR.family, independent: false },
      accept: arm === 'gated' ? i === attempts - 1 && verdict === 'DONE' : null,
      findings: i < attempts - 1 ? ['FIXTURE finding: a seam check fails'] : [],
      verdict: arm === 'gated' ? (i === attempts - 1 ? verdict : 'NOT_DONE') : ('self-review, not used' as const),
      seamChecks: { passed: results.filter((r) => r.passed).length, total: results.length },
    })),
    stop: arm === 'gated' && verdict === 'DONE' ? 'accept' : 'max_attempts',
  });

  async function build(node: Planned): Promise<NodeResult> {
    const checks = checksOf(node);
    emit({ type: 'node_started', nodeId: node.id, parentId: node.id.includes('.') ? node.id.slice(0, node.id.lastIndexOf('.')) : null, depth: node.depth, goal: `FIXTURE: ${node.requirements.join(' ')}`, allocation: 100_000 });
    const split = node.children.length > 0;
    emit({
      type: 'node_planned', nodeId: node.id, mode: split ? 'split' : 'execute', forcedExecute: !split && node.depth >= cap ? 'depth cap reached' : null,
      assumptions: ['FIXTURE assumption: CSV files are UTF-8'], openQuestions: [], layout: split ? 'sqlcsv/ package, tests/ beside it' : null,
      subtasks: node.children.map((c) => ({ slug: c.id, goal: `FIXTURE: ${c.requirements.join(' ')}`, kind: 'work', prerequisite: false, claims: c.requirements.map((r) => `${r} holds`) })),
      atomicity: node.children.map((c) => ({ slug: c.id, oversized: false, reasons: [] })),
    });
    await session(node, 'planner', 1, EXECUTOR, [], JSON.stringify({ mode: split ? 'split' : 'execute', subtasks: node.children.map((c) => c.id) }));
    const children: NodeResult[] = [];
    for (const child of node.children) children.push(await build(child));
    emit({ type: 'checks_written', nodeId: node.id, revision: 1, reason: split ? 'seam' : 'initial', checks });
    for (const c of checks) emit({ type: 'check_falsified', nodeId: node.id, checkId: c.id, outcome: 'ok', detail: 'fails on an empty workspace, as it should', exitCode: 1 });
    const results = checks.map((c, i) => ({ id: c.id, passed: !(split && i === 2 && arm === 'ungated'), exitCode: split && i === 2 && arm === 'ungated' ? 1 : 0, timedOut: false, output: `FIXTURE output of ${c.id}: ${i === 2 && split && arm === 'ungated' ? '1 failed' : '3 passed'}` }));
    let attempts = 1;
    if (split) {
      await session(node, 'merger', 1, EXECUTOR, [{ tool: 'write_file', args: { path: 'sqlcsv/engine.py', content: 'def run(query):\n    """FIXTURE"""\n    return []\n' }, output: 'wrote sqlcsv/engine.py (3 lines)' }], 'Merged the children under .children/ into the root tree.');
      emit({ type: 'assembled', nodeId: node.id, children: node.children.map((c) => c.id), interfaceChanges: ['FIXTURE: engine.run takes a parsed query'] });
      const reviewer = arm === 'gated' ? REVIEWER : EXECUTOR;
      await session(node, 'reviewer', 1, reviewer, [{ tool: 'read_file', args: { path: 'sqlcsv/engine.py' }, output: 'def run(query):\n    """FIXTURE"""\n    return []\n' }], arm === 'gated' ? 'REJECT: one seam check fails' : 'APPROVE');
      if (arm === 'gated') {
        attempts = 2;
        emit({ type: 'repair_round', nodeId: node.id, attempt: 1, accepted: false, independent: true, score: 2, stop: null });
        await session(node, 'merger', 2, EXECUTOR, [{ tool: 'write_file', args: { path: 'sqlcsv/engine.py', content: 'def run(query):\n    return list(query.rows())\n' }, output: 'wrote sqlcsv/engine.py (2 lines)' }], 'Repaired the seam the reviewer named.');
        emit({ type: 'repair_round', nodeId: node.id, attempt: 2, accepted: true, independent: true, score: 3, stop: 'accept' });
      } else {
        emit({ type: 'repair_round', nodeId: node.id, attempt: 1, accepted: true, independent: false, score: 2, stop: 'accept' });
      }
    } else {
      await session(node, 'checker', 1, EXECUTOR, [], JSON.stringify({ checks }));
      const turns = [
        { tool: 'write_file', args: { path: `sqlcsv/${node.id.replace(/\./g, '_')}.py`, content: `# FIXTURE module for ${node.requirements.join(', ')}\n${node.requirements.map((r) => `def ${r.toLowerCase()}():\n    return True\n`).join('\n')}` }, output: 'wrote the file' },
        { tool: 'run_command', args: { command: 'python -m pytest -q' }, output: `${checks.length} passed in 0.02s` },
      ];
      if (!bulkyDone && options.bulkySession) {
        bulkyDone = true;
        for (let i = 0; i < options.bulkySession.rounds; i++) {
          const line = `FIXTURE bulky output, round ${i + 1}: ${'abcdefghij'.repeat(7)}\n`;
          const output = line.repeat(Math.ceil(options.bulkySession.outputChars / line.length)).slice(0, options.bulkySession.outputChars - 16) + `\nEND OF ROUND ${i + 1}`;
          turns.push({ tool: 'run_command', args: { command: `cat log-${i + 1}.txt` }, output });
        }
      }
      await session(node, 'worker', 1, EXECUTOR, turns, 'FIXTURE: the work is done and its checks pass.');
      await session(node, 'verifier', 1, REVIEWER, [{ tool: 'run_command', args: { command: checks[0]!.command }, output: '1 passed' }], 'DONE');
      emit({ type: 'checks_run', nodeId: node.id, by: 'worker', results });
    }
    emit({ type: 'checks_run', nodeId: node.id, by: 'verifier', results });
    emit({ type: 'meta_verified', nodeId: node.id, adequate: true, reason: 'FIXTURE: the checks exercise every claimed requirement', model: REVIEWER.model });
    const allPass = results.every((r) => r.passed);
    emit({ type: 'verifier_opinion', nodeId: node.id, verdict: allPass ? 'DONE' : 'NOT_DONE', model: REVIEWER.model, family: REVIEWER.family, findings: allPass ? [] : ['FIXTURE finding: a seam check fails'] });
    const verdict = allPass ? 'DONE' : 'NOT_DONE';
    emit({ type: 'verdict', nodeId: node.id, verdict, reasons: [allPass ? 'every check passed and an independent family signed off' : 'a check failed'], checksPassed: results.filter((r) => r.passed).length, checksTotal: results.length, verifiedBy: allPass ? [REVIEWER.family] : [], openQuestions: [], attempt: attempts });
    return NodeResult.parse({
      id: node.id, slug: node.id, goal: `FIXTURE: ${node.requirements.join(' ')}`, depth: node.depth, kind: 'work', mode: split ? 'split' : 'leaf', forcedExecute: null, verdict,
      reasons: [allPass ? 'every check passed' : 'a seam check failed'], assumptions: ['FIXTURE assumption: CSV files are UTF-8'], openQuestions: [],
      claims: node.requirements.map((r) => `${r} holds`), artifacts: [`sqlcsv/${node.id.replace(/\./g, '_')}.py`], checks, checkResults: results,
      verifiedBy: allPass ? [REVIEWER.family] : [], contributorModels: [EXECUTOR.model], contributorFamilies: [EXECUTOR.family], attempts,
      repairStop: split ? 'accept' : null, merge: split ? fixtureMerge(attempts, results, verdict) : null, stop: null, checkRewrites: 0, monitorFlags: [], overrides: [], interfaceChanges: split ? ['FIXTURE: engine.run takes a parsed query'] : [],
      allocation: 100_000, tokens: 5_000, usage: { inputTokens: 4000, outputTokens: 600, cachedTokens: 3000 }, costUsd: 0, estimatedUsageCalls: 0, workspace: `/tmp/fixture/${node.id}`, children,
    });
  }

  const result = await build(tree);
  await writeFile(paths.result, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(paths.events, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  const grade: GradeResult = GradeResult.parse({
    version: 2, spec: 'sqlcsv', tree: `cells/${cellId}/tree`, satisfied: passing.length, total: 42, casesPassed: passing.length * 4, casesTotal: 42 * 4, testFiles: 2 * cap,
    requirements: REQUIREMENTS.map((id) => ({ id, title: `FIXTURE requirement ${id}`, pass: passing.includes(id), passed: passing.includes(id) ? 4 : 2, total: 4, failures: passing.includes(id) ? [] : [{ case: `${id.toLowerCase()}-3`, reason: 'FIXTURE: the output differs from the expected rows' }] })),
    skipped: [], skippedCount: 0, undeliverable: null, mode: 'fork', compile: { ok: true, note: null }, integrityChecks: 170, elapsedMs: 2100,
  });
  await writeFile(paths.grade, `${JSON.stringify(grade, null, 2)}\n`);

  const leaves: Planned[] = [];
  const merges: Planned[] = [];
  const walk = (n: Planned) => (n.children.length ? (merges.push(n), n.children.forEach(walk)) : leaves.push(n));
  walk(tree);
  const spend = (n: number) => ({ sessions: n, tokens: { input: 2400 * n, cached: 1600 * n, output: 300 * n }, costUsd: 0, unpricedSessions: 0 });
  const measurement: CellMeasurement = {
    cap, arm, repetition, pairing: 'shared',
    leaves: leaves.map((l) => ({ path: l.id, level: l.depth, room: false, delivered: true, claims: l.requirements.map((r) => ({ criterion: `${r} holds`, requirement: r })) })),
    merges: merges.map((m) => ({
      path: m.id, level: m.depth, children: m.children.length, attempts: arm === 'gated' ? 2 : 1,
      reviews: [{ attempt: 1, kind: arm === 'gated' ? 'independent' : 'self', reviewer: arm === 'gated' ? REVIEWER : EXECUTOR, contributors: [EXECUTOR], verdict: arm === 'gated' ? 'reject' : 'approve' }],
    })),
    grade: { passing, total: 42, testsCarried: 2 * cap },
    escalations: [],
    spend: { leaf: spend(leaves.length * 4), planning: spend(merges.length), merge: spend(merges.length * (arm === 'gated' ? 3 : 2)) },
  };
  return { measurement, grade, sessions };
}

/** Writes the fixture run into `dir` (created; should be empty) and its report. */
export async function writeRunFixture(dir: string, options: RunFixtureOptions = {}): Promise<RunFixture> {
  const manifestFile = options.manifest ?? path.join(REPO_ROOT, 'manifests', 'smoke.yaml');
  const manifestBytes = await readFile(manifestFile);
  const paths = runPaths(dir);
  await mkdir(paths.cells, { recursive: true });
  await writeFile(paths.manifest, manifestBytes);
  const clock = new Clock();
  const pair = (p: { model: string; family: string }) => ({ provider: 'sim' as const, model: p.model, realModel: p.model, endpoint: 'sim', declaredFamily: p.family, realFamily: p.family, rung: 1 });
  const code = { state: 'git' as const, commit: hex('fixture', 40), dirty: false, changes: null };
  const pins: JournalPins = {
    manifest: { path: 'manifests/smoke.yaml', sha256: createHash('sha256').update(manifestBytes).digest('hex'), bytes: manifestBytes.length },
    spec: { path: 'spec/sqlcsv', content: { state: 'present', sha256: hex('spec'), files: 2 } },
    oracle: { path: 'oracle/sqlcsv', content: { state: 'present', sha256: hex('oracle'), files: 40 } },
    simCorpus: { path: 'harness/sim/corpus', content: { state: 'absent' } },
    executor: pair(EXECUTOR),
    reviewer: pair(REVIEWER),
    simulated: null,
    harnessVersion: '0.1.0',
    code,
  };
  const inputs: SweepEventInput[] = [
    { type: 'header', manifestName: 'smoke', pins },
    { type: 'run_started', resume: false, depths: [1, 2], concurrency: 4, code, harnessVersion: '0.1.0', caveats: [] },
  ];
  const cells = [1, 2].flatMap((cap) => (['gated', 'ungated'] as const).map((arm) => runFiles.cellId({ cap, arm, repetition: 1 })));
  const sessions: FixtureSession[] = [];
  for (const [i, cell] of cells.entries()) {
    inputs.push({ type: 'cell_started', cellId: cell });
    const written = await writeCell(dir, cell, options, clock, i === 0);
    for (const s of written.sessions) {
      const who = { cellIds: [cell], sessionId: s.sessionId, role: s.sessionId.split('/').at(-2) as runFiles.Role, nodePath: s.nodeId, attempt: Number(s.sessionId.split('/').at(-1)) };
      inputs.push({ type: 'session_started', ...who, reopened: false }, { type: 'session_finished', ...who, turns: 2, tokens: { input: 2400, cached: 1600, output: 300 }, costUsd: 0, stop: 'completed' });
    }
    inputs.push({ type: 'grading_recorded', cellId: cell, grade: written.grade });
    inputs.push({ type: 'cell_finished', cellId: cell, outcome: { status: 'measured', result: written.measurement } });
    sessions.push(...written.sessions);
  }
  inputs.push({ type: 'sweep_stopped', reason: 'completed', detail: 'FIXTURE: every cell was written by the test fixture', unmeasured: [] });
  const events = inputs.map((input, i) => SWEEP_JOURNAL.schema.parse({ ...input, version: SWEEP_JOURNAL.versions.get(input.type), seq: i + 1, at: new Date(T0 + i * 1000).toISOString() }) as SweepEvent);
  await writeFile(paths.journal, events.map((e) => JSON.stringify(e)).join('\n') + '\n');
  await writeReport(dir);
  return { dir, cells, sessions };
}
