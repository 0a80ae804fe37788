import {
  type Arm,
  type BuildOptions,
  type SessionLimiter,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type NodeResult,
  type RequestLayout,
} from '../../engine/index.js';
import type { GradeResult } from '../grading/grading-report.js';
import type { CellMeasurement } from '../journal/cell-measurement.js';
import type { Manifest } from '../manifest/manifest.js';
import { addResponse, type SessionSpend } from '../cell/cell-measure.js';
import { runPair } from '../cell/pair-run.js';
import { RecordedCallClient, ReplayDivergenceError } from '../record/recorded-client.js';
import { cellsOfSession, spentOf, transcriptArmOf } from '../record/pair-sessions.js';
import { cellId, type CellId } from '../journal/run-folder.js';
import type { RecordedCall } from '../journal/transcripts.js';
import { messageDifference } from './replay-compare.js';

/**
 * One recorded (cap, repetition) pair re-executed for `harness replay`: the engine runs again
 * with the recorded options, in real sandboxes, and every model call is answered from the
 * pair's transcripts by a RecordedCallClient in STRICT mode, whose inner client refuses: no
 * model is ever called, and no HTTP client exists. The first request the record does not
 * hold (after the documented normalisation) is the divergence; from then on every call is
 * refused at once, so the rest of the tree stops quickly instead of guessing.
 */

/** The first model call the record does not hold. */
export interface CallDivergence {
  cells: CellId[];
  node: string;
  sessionId: string;
  role: ModelRequest['role'];
  attempt: number;
  /** 0-based index of the call in its session. */
  call: number;
  reason: string;
  /** The first differing message, expected (recorded) against got (asked), when the histories differ. */
  message?: { message: string; expected: string; got: string };
}

export interface ReplayedArm {
  root: NodeResult;
  grade: GradeResult;
  /** The arm's measurement, its sessions priced from the recorded usage (as record counts them). */
  measurement: CellMeasurement;
}

export interface PairReplay {
  divergence?: CallDivergence;
  /** Sessions the record holds more calls of than the replay asked for (the engine stopped early). */
  unasked: Array<{ sessionId: string; recorded: number; asked: number }>;
  arms: Partial<Record<Arm, ReplayedArm>>;
  calls: { served: number; live: number };
  /** What ended the replay early (a divergence refused, or a failure), when it did not finish. */
  error?: Error;
}

export interface ReplayPairOptions {
  manifest: Manifest;
  cap: number;
  repetition: number;
  /** The arms to assemble and grade (both, or the one `--cell` names). */
  arms: readonly Arm[];
  /**
   * Every session of the pair on record, per arm's transcript folder, by id. Per arm because
   * under independent pairing both arms' trees use the same engine session ids: a session is
   * answered only from the folder its transcript was written to (transcriptArmOf).
   */
  recorded: Readonly<Record<Arm, ReadonlyMap<string, readonly RecordedCall[]>>>;
  roster: BuildOptions['roster'];
  /** The endpoint names the roster uses: each gets the strict recorded client, and nothing else. */
  endpoints: readonly string[];
  sandboxes: BuildOptions['sandboxes'];
  objective: { goal: string; context: string; criteria: string[] };
  budget: BuildOptions['budget'];
  /** Scratch folder shaped like the recorded one (`…/cells/<cell>/work`) so paths compare canonically. */
  workRoot: string;
  runId: string;
  limiter: SessionLimiter;
  grade(tree: string): Promise<GradeResult>;
  /** Grade every merged subtree too, as the recording did (`grade_merges`). Default: only roots. */
  gradeMerges?: { entryPoints: readonly string[] };
  /** Grade every leaf's own tree too, as the recording did (`grade_leaves`). Default: leaves are not graded. */
  gradeLeaves?: { entryPoints: readonly string[] };
  /** The layout the pair's requests were recorded in (see replay-layout.ts). Default: the engine's own. */
  requestLayout?: RequestLayout;
}

/** The inner client of the strict record: never reached (strict mode throws first), and refusing if it were. */
const NO_LIVE_CALLS: ModelClient = {
  complete: () => Promise.reject(new Error('harness replay makes no model calls (the strict recorded client should have refused first)')),
};

/** A session by the arm folder its record is in and its engine id: the ids repeat across an independent pair's arms. */
const at = (arm: Arm, sessionId: string) => `${arm} ${sessionId}`;

export async function replayPair(o: ReplayPairOptions): Promise<PairReplay> {
  const recordedArms = o.manifest.arms;
  const cells = Object.fromEntries(recordedArms.map((arm) => [arm, cellId({ cap: o.cap, arm, repetition: o.repetition })])) as Record<Arm, CellId>;
  // Asked calls and spends by arm folder and session id (`at`).
  const asked = new Map<string, number>();
  const spends = new Map<string, SessionSpend>();
  let divergence: CallDivergence | undefined;
  // Requests are compared as sent: the transcripts hold them exactly (docs/redaction.md).
  const stricts = Object.fromEntries(recordedArms.map((arm) => [arm, new RecordedCallClient(NO_LIVE_CALLS, o.recorded[arm] ?? new Map(), { mode: 'strict' })])) as Record<Arm, RecordedCallClient>;

  const client: ModelClient = {
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const arm = transcriptArmOf(request, recordedArms);
      const k = asked.get(at(arm, request.sessionId)) ?? 0;
      asked.set(at(arm, request.sessionId), k + 1);
      if (divergence) throw new ReplayDivergenceError(request.sessionId, k, 'refused: the replay already diverged');
      let response: ModelResponse;
      try {
        response = await stricts[arm].complete(request);
      } catch (error) {
        if (error instanceof ReplayDivergenceError) {
          const message = messageDifference(request, o.recorded[arm]?.get(request.sessionId)?.[k]);
          divergence = {
            cells: cellsOfSession(request, cells, recordedArms).ids, node: request.nodeId, sessionId: request.sessionId,
            role: request.role, attempt: request.attempt, call: k, reason: error.reason, ...(message ? { message } : {}),
          };
        }
        throw error;
      }
      // Spend as record counts it: per session, the usage each recorded answer carried.
      let spend = spends.get(at(arm, request.sessionId));
      if (!spend) {
        const { mergeArm } = cellsOfSession(request, cells, recordedArms);
        spend = { sessionId: request.sessionId, nodeId: request.nodeId, ...(mergeArm ? { mergeArm } : request.arm ? { buildArm: request.arm as Arm } : {}), tokens: { input: 0, cached: 0, output: 0 }, costUsd: 0 };
        spends.set(at(arm, request.sessionId), spend);
      }
      addResponse(spend, o.roster, request.model, response);
      return response;
    },
  };

  const engine: Omit<BuildOptions, 'forArm' | 'maxDepth'> = {
    goal: o.objective.goal, budget: o.budget,
    mergeAttempts: o.manifest.merge_attempts, ...(o.manifest.max_children !== undefined ? { maxChildren: o.manifest.max_children } : {}), roster: o.roster, clients: Object.fromEntries(o.endpoints.map((e) => [e, client])),
    sandboxes: o.sandboxes, workRoot: o.workRoot, runId: o.runId, limiter: o.limiter, secrets: [], cooldownMs: 1000,
    sessionCeilings: { tokens: o.manifest.unit.token_ceiling, costUsd: o.manifest.unit.cost_ceiling_usd }, maxTurns: o.manifest.unit.max_turns,
    objective: { context: o.objective.context, criteria: o.objective.criteria },
    ...(o.requestLayout ? { requestLayout: o.requestLayout } : {}),
  };

  const arms: Partial<Record<Arm, ReplayedArm>> = {};
  let error: Error | undefined;
  try {
    const run = await runPair({
      cell: { cap: o.cap, repetition: o.repetition }, arms: o.arms, pairing: o.manifest.pairing, engine, grade: (tree) => o.grade(tree),
      ...(o.gradeMerges ? { gradeMerges: o.gradeMerges } : {}),
      ...(o.gradeLeaves ? { gradeLeaves: o.gradeLeaves } : {}),
      hooks: {
        // After a divergence nothing is graded: the tree is not the recorded one.
        assembled: async () => (divergence ? 'diverged' : undefined),
        sessions: (arm) => spentOf([...spends.values()], arm, recordedArms),
      },
    });
    for (const a of run.arms) arms[a.arm] = { root: a.root, grade: a.grade, measurement: a.measurement };
  } catch (caught) {
    error = caught as Error;
  }

  // Calls the record holds that the replay never asked for: the replayed engine stopped sooner.
  // A folder of an arm not replayed is left out; under shared pairing the build is in the first arm's.
  const otherArms = recordedArms.filter((a) => !o.arms.includes(a));
  const unasked = recordedArms
    .filter((arm) => o.arms.includes(arm) || (o.manifest.pairing === 'shared' && arm === recordedArms[0]))
    .flatMap((arm) => [...(o.recorded[arm] ?? new Map()).entries()].map(([sessionId, calls]) => ({ arm, sessionId, calls })))
    .filter(({ sessionId }) => !otherArms.some((a) => sessionId.startsWith(`${a}/`)))
    .filter(({ arm, sessionId, calls }) => (asked.get(at(arm, sessionId)) ?? 0) < calls.length)
    .map(({ arm, sessionId, calls }) => ({ sessionId, recorded: calls.length, asked: asked.get(at(arm, sessionId)) ?? 0 }));
  const counts = Object.values(stricts).reduce((sum, c) => ({ served: sum.served + c.counts.replayed, live: sum.live + c.counts.live }), { served: 0, live: 0 });
  return { ...(divergence ? { divergence } : {}), unasked, arms, calls: counts, ...(error ? { error } : {}) };
}
