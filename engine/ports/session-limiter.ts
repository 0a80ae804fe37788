/**
 * The CallLimiter port: how many model calls may be in flight at once. A sweep injects ONE
 * limiter shared by every session of every cell, so concurrency is a property of the account,
 * not of each tree. The default lets every call through.
 */
export interface CallLimiter {
  run<T>(call: () => Promise<T>): Promise<T>;
}

export const UNLIMITED: CallLimiter = { run: (call) => call() };
