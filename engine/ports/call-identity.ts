import { z } from 'zod';
import { Arm } from '../base/arm.js';
import { Role, type ModelRequest } from './model-client.js';

/**
 * The header that names a call of an experiment: which cell it serves, the arm, the node, the
 * role, the node's attempt and the session. A provider entry that opts in (`session_header`,
 * default on only for loopback base URLs) sends it on every request; real providers ignore it.
 * The SIMULATED provider served over HTTP (`harness sim serve`) rebuilds the simulated world of
 * the cell from it and answers exactly as the in-process population would. It tells a system
 * under test the experiment's design, which is why it is off for any remote endpoint.
 */
export const CALL_HEADER = 'x-rdh-call';

export const CallIdentity = z.strictObject({
  /** The cell the call serves (under shared pairing, the pair's first cell for work both arms share). */
  cell: z.string().min(1).max(200),
  /** The arm, on merge-phase calls and on builds that serve one arm alone. */
  arm: Arm.optional(),
  node: z.string().min(1).max(500),
  role: Role,
  attempt: z.int().positive(),
  session: z.string().min(1).max(500),
});
export type CallIdentity = z.infer<typeof CallIdentity>;

/** The identity a request carries, when the harness named its cell; undefined otherwise (e.g. `harness solve`). */
export function callIdentityOf(request: ModelRequest): CallIdentity | undefined {
  if (!request.cellId) return undefined;
  return {
    cell: request.cellId,
    ...(request.arm ? { arm: request.arm } : {}),
    node: request.nodeId,
    role: request.role,
    attempt: request.attempt,
    session: request.sessionId,
  };
}

/** The header's value: JSON with every non-ASCII character escaped, so it is a valid header value. */
export function encodeCallHeader(identity: CallIdentity): string {
  return JSON.stringify(CallIdentity.parse(identity)).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The identity a header names; throws a one-line Error naming what is wrong when it names none. */
export function decodeCallHeader(value: string | undefined): CallIdentity {
  if (!value) throw new Error(`no ${CALL_HEADER} header: the simulated provider answers only calls that name their cell (set session_header: true on the provider entry)`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error(`the ${CALL_HEADER} header is not JSON`);
  }
  const result = CallIdentity.safeParse(parsed);
  if (!result.success) throw new Error(`the ${CALL_HEADER} header is not a call identity: ${result.error.issues.map((i) => `${i.path.join('.') || '(value)'} ${i.message}`).join('; ')}`);
  return result.data;
}
