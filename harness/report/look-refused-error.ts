import { RdhError } from '../../engine/index.js';

/**
 * `harness report --look` refused to take a look (past the declared K, after a stop, on no new
 * pairs, without a pre-registered hypothesis). Exit 2, like any bad input: nothing is written,
 * neither the journal nor the report.
 */
export class LookRefusedError extends RdhError {
  readonly code = 'look_refused';
}
