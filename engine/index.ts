/**
 * The engine's public entry. Everything outside engine/ imports from here and nowhere else.
 */
export * from './errors.js';
export * from './sandbox.js';
export {
  DEFAULT_LIMITS,
  DockerSandboxProvider,
  SANDBOX_LABELS,
  assertDockerReachable,
  describeDockerHost,
  pruneSandboxes,
  type DockerSandboxProviderOptions,
  type PruneOptions,
  type PruneResult,
  type SandboxLimits,
} from './docker-sandbox.js';
export { stableJson } from './internal/stable-json.js';
