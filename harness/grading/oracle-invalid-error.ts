import { RdhError } from '../../engine/index.js';

/** An oracle (its definition, cases or recipe) that cannot be used, named by file and field: the grading is refused (exit 4). */
export class OracleInvalidError extends RdhError {
  readonly code = 'oracle_invalid';
}
