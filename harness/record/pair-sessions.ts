import {
  JsonlDirectory,
  SecretCatalogue,
  TranscriptRecorder,
  systemClock,
  type Arm,
  type BuildOptions,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type Usage,
  priceOf,
  worstCaseUsage,
} from '../../engine/index.js';
import { addResponse, type SessionSpend } from '../cell/cell-measure.js';
import { RecordedCallClient } from './recorded-client.js';
import { sessionFileName, type CellId } from '../journal/run-folder.js';
import type { SessionGate } from './session-gate.js';
import type { SweepEventInput } from '../journal/sweep-events.js';
import type { RecordedCall } from '../journal/transcripts.js';

/**
 * The model sessions of one pair in `harness record`: each admitted by the SessionGate before
 * its first call, journalled when it opens and when it ends, transcribed into its cell's
 * folder, priced by the roster entry asked, and answered from an earlier transcript while
 * its requests match (a resume, or a re-run after a lost host, pays no completed call twice).
 */

/** Which cells of a pair a session serves: its arm's cell in the merge phase, else every arm's. */
export function cellsOfSession(request: Pick<ModelRequest, 'sessionId' | 'arm'>, cells: Record<string, CellId>, arms: readonly Arm[]): { ids: CellId[]; mergeArm?: Arm } {
  const mergeArm = arms.find((a) => request.sessionId.startsWith(`${a}/`));
  if (mergeArm) return { ids: [cells[mergeArm]!], mergeArm };
  if (request.arm) return { ids: [cells[request.arm]!] };
  return { ids: arms.map((a) => cells[a]!) };
}

/** The arm whose cell folder holds a session's transcript: its merge arm, the arm its own build served (independent pairing), else the first arm (a shared build). */
export function transcriptArmOf(request: Pick<ModelRequest, 'sessionId' | 'arm'>, arms: readonly Arm[]): Arm {
  return arms.find((a) => request.sessionId.startsWith(`${a}/`)) ?? (request.arm as Arm | undefined) ?? arms[0]!;
}

/**
 * A session's identity across the whole sweep: the cells it serves and its engine id. Engine ids
 * repeat from pair to pair (every tree has a `root/planner/1`), so the id alone would make a later
 * pair's sessions look re-opened and slip past max_sessions.
 */
export function sessionKey(cellIds: readonly string[], sessionId: string): string {
  return `${cellIds.join('+')} ${sessionId}`;
}

/** The sessions of a cell: those of its own arm's merges, and the shared work (no other arm's merges). */
export function spentOf(spent: readonly SessionSpend[], arm: Arm, arms: readonly Arm[]): SessionSpend[] {
  return spent
    .filter((s) => !s.mergeArm || s.mergeArm === arm)
    .filter((s) => !s.buildArm || s.buildArm === arm)
    .filter((s) => s.mergeArm || !arms.some((a) => a !== arm && s.sessionId.startsWith(`${a}/`)));
}

interface OpenSession {
  spend: SessionSpend;
  role: ModelRequest['role'];
  attempt: number;
  ids: CellId[];
  calls: number;
  /** The arm whose cell folder holds the session's transcript (work both arms share: the first arm's). */
  transcriptArm: Arm;
}

export interface PairSessionsOptions {
  arms: readonly Arm[];
  /** Each arm's cell. */
  cells: Record<Arm, CellId>;
  /** Each arm's cell transcript folder. */
  transcriptDirs: Record<Arm, string>;
  /**
   * The calls transcribed by earlier runs of this pair, per arm's cell folder, by session. Per
   * arm because under independent pairing both arms' trees use the same engine session ids: a
   * session is answered only from the folder its own transcript is written to.
   */
  recorded: Record<Arm, Map<string, RecordedCall[]>>;
  secrets: readonly string[];
  roster: BuildOptions['roster'];
  gate: SessionGate;
  /** Sessions (by {@link sessionKey}) any earlier invocation or run of this pair started: reopening one is journalled as such. */
  startedBefore: Set<string>;
  append(event: SweepEventInput): Promise<unknown>;
}

export class PairSessions {
  /** Every session that has ended, with its spend. */
  readonly spent: SessionSpend[] = [];
  private readonly open = new Map<string, OpenSession>();
  private readonly recorders: Record<Arm, TranscriptRecorder>;
  private readonly secrets: SecretCatalogue;

  constructor(private readonly o: PairSessionsOptions) {
    // One transcript format everywhere: the engine's recorder (each message stored once, exactly
    // as sent; only error lines redacted), one recorder per cell folder, shared by every client of the pair.
    this.secrets = new SecretCatalogue([...o.secrets]);
    this.recorders = Object.fromEntries(
      o.arms.map((a) => [a, new TranscriptRecorder(new JsonlDirectory(o.transcriptDirs[a], { fileName: sessionFileName }), systemClock, this.secrets)]),
    ) as Record<Arm, TranscriptRecorder>;
  }

  /** `live` behind the gate, the journal, the transcripts and the recorded calls. */
  wrap(live: ModelClient): ModelClient {
    const o = this.o;
    const transcribed = Object.fromEntries(o.arms.map((a) => [a, this.recorders[a].wrap(live)])) as Partial<Record<Arm, ModelClient>>;
    // Only live calls reach the recorder (a call answered from the record is already in it), and
    // only live calls cost money: each is admitted under the cost ceiling at its worst case first.
    const recording: ModelClient = {
      complete: async (request) => {
        const s = this.open.get(request.sessionId)!;
        const spec = o.roster.find((m) => m.model === request.model);
        const cost = (usage: Usage) => (spec ? priceOf(spec, usage) : 0);
        const ticket = o.gate.admitCall(request.model, s.ids, cost(worstCaseUsage(request, null).usage));
        let paid = 0;
        try {
          const response = await transcribed[s.transcriptArm]!.complete(request);
          paid = cost(response.usage) + (response.unreceived ? cost(response.unreceived.usage) : 0);
          return response;
        } catch (error) {
          const lost = (error as { unreceived?: { usage: Usage } }).unreceived;
          paid = lost ? cost(lost.usage) : 0;
          throw error;
        } finally {
          o.gate.callEnded(ticket, paid);
        }
      },
    };
    const replays = Object.fromEntries(
      o.arms.map((arm) => [
        arm,
        new RecordedCallClient(recording, o.recorded[arm], {
          onSwitch: async (sessionId, call, reason) => {
            const s = this.open.get(sessionId);
            // The live calls continue the session's file from the call that went live; the recorded
            // lines from there on are superseded (see sessionRequests).
            if (s) this.recorders[s.transcriptArm].resume(sessionId, call, o.recorded[arm].get(sessionId)?.[call - 1]?.messages ?? []);
            await o.append({ type: 'replay_switch', cellIds: (s?.ids ?? o.arms.map((a) => o.cells[a])) as [CellId, ...CellId[]], sessionId, call, reason });
          },
        }),
      ]),
    ) as Record<Arm, RecordedCallClient>;
    return {
      complete: async (asked: ModelRequest): Promise<ModelResponse> => {
        // The cell the call serves travels with it (a provider entry that opts in sends it as x-rdh-call).
        const { ids: served, mergeArm } = cellsOfSession(asked, o.cells, o.arms);
        const request: ModelRequest = { ...asked, cellId: served[0]! };
        let s = this.open.get(request.sessionId);
        // The arm whose folder holds this session's transcript, and so its record.
        const transcriptArm = transcriptArmOf(request, o.arms);
        if (s && s.transcriptArm !== transcriptArm) throw new Error(`session ${request.sessionId} is open for ${s.ids.join('+')} and asked for ${served.join('+')}: two trees share an engine id while both are open`);
        const replay = replays[transcriptArm];
        if (!s) {
          const key = sessionKey(served, request.sessionId);
          const reopened = o.startedBefore.has(key) || replay.has(request.sessionId);
          // A session with no record makes its first call live: its worst case must fit under max_cost_usd before the session counts.
          const spec = o.roster.find((m) => m.model === request.model);
          const firstWorst = replay.has(request.sessionId) ? undefined : spec ? priceOf(spec, worstCaseUsage(request, null).usage) : 0;
          o.gate.admit(request.model, served, reopened, firstWorst);
          s = {
            spend: { sessionId: request.sessionId, nodeId: request.nodeId, ...(mergeArm ? { mergeArm } : request.arm ? { buildArm: request.arm as Arm } : {}), tokens: { input: 0, cached: 0, output: 0 }, costUsd: 0 },
            role: request.role,
            attempt: request.attempt,
            ids: served,
            calls: 0,
            transcriptArm,
          };
          this.open.set(request.sessionId, s);
          // A re-run of this pair after a lost host re-opens it, as a resume would.
          o.startedBefore.add(key);
          await o.append({ type: 'session_started', cellIds: served as [CellId, ...CellId[]], sessionId: request.sessionId, role: request.role, nodePath: request.nodeId, attempt: request.attempt, reopened });
        }
        const { response } = await replay.answer(request);
        s.calls++;
        addResponse(s.spend, o.roster, request.model, response);
        return response;
      },
    };
  }

  /** Ends every open session, journalling each with its turns and spend. */
  async finishAll(stopped: 'completed' | 'interrupted' | 'error'): Promise<void> {
    for (const s of [...this.open.values()]) {
      this.open.delete(s.spend.sessionId);
      await this.o.append({
        type: 'session_finished', cellIds: s.ids as [CellId, ...CellId[]], sessionId: s.spend.sessionId, role: s.role, nodePath: s.spend.nodeId, attempt: s.attempt,
        turns: s.calls, tokens: s.spend.tokens, costUsd: s.spend.costUsd, stop: stopped,
      });
      this.spent.push(s.spend);
    }
  }

  /** Flushes and closes the transcripts. */
  async close(): Promise<void> {
    await Promise.all(Object.values<TranscriptRecorder>(this.recorders).map((r) => r.close()));
  }
}
