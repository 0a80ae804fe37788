import {
  BudgetExhaustedError,
  ContractMissingError,
  ModelRateLimitedError,
  ModelResponseInvalidError,
  ModelUnavailableError,
  NoEligibleModelError,
  StructuredOutputError,
  WorkspaceListingError,
  type RdhError,
} from '../base/errors.js';
import type { NodeStop } from './node-result.js';

/**
 * Failures that end one node as a designed STOPPED outcome, with what stopped it; null for
 * anything else, which is thrown on: a failure true of every call (quota, configuration,
 * Docker) or a bug. A provider that keeps failing stops the node that needed it, never the run.
 */
export function stopOf(error: unknown): (NodeStop & { reason: string }) | null {
  const stop = (by: NodeStop['by'], e: RdhError, model: string | null = null, reason = e.message) => ({ by, model, code: e.code, reason });
  if (error instanceof BudgetExhaustedError) return stop('budget', error, null, `budget: ${error.message}`);
  if (error instanceof ModelRateLimitedError || error instanceof ModelUnavailableError || error instanceof ModelResponseInvalidError) {
    return stop('provider', error, error.model, `provider: ${error.message}`);
  }
  if (error instanceof NoEligibleModelError) return stop('independence', error);
  if (error instanceof StructuredOutputError) return stop('unreadable_output', error);
  if (error instanceof ContractMissingError) return stop('contract', error, null, `contract: ${error.message}`);
  if (error instanceof WorkspaceListingError) return stop('workspace', error);
  return null;
}
