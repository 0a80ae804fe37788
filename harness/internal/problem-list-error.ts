import { RdhError } from '../../engine/index.js';

/** An input with several independent problems: one line each, every line naming its fix. */
export abstract class ProblemListError extends RdhError {
  constructor(
    readonly problems: readonly string[],
    options?: { cause?: unknown },
  ) {
    super(problems.join('\n'), options);
  }
}
