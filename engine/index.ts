/**
 * The engine's public entry. Everything outside engine/ imports from here and nowhere else.
 * Its rooms, lowest first (no import runs upward; tests/engine/layout.test.ts holds it):
 * - base/: the data every room shares (checks, verdicts, usage), errors, the secret catalogue;
 * - ports/: what the engine needs from outside (model client, sandbox, clock, events, session limiter);
 * - adapters/: those ports on real things (openai SDK, Docker, JSONL files, transcripts);
 * - runtime/: the plumbing every stage uses (router, accounting, structured output, tool loop);
 * - court/: checks, falsification, verification, the gate, the monitor, the repair loop;
 * - tree/: solve, split, leaf and the plan rules.
 */

// base
export * from './base/errors.js';
export * from './base/check.js';
export * from './base/usage.js';
export * from './base/verdict.js';
export { ARMS, Arm } from './base/arm.js';
export * from './base/secrets.js';
export { stableJson } from './base/stable-json.js';

// ports
export * from './ports/model-client.js';
export { CALL_HEADER, CallIdentity, callIdentityOf, decodeCallHeader, encodeCallHeader } from './ports/call-identity.js';
export { AttemptOutcome, type AttemptOutcomeType } from './ports/attempt-outcome.js';
export * from './ports/sandbox.js';
export {
  adaptiveSessionLimiter,
  sessionLimiter,
  type AdaptiveSessionLimiter,
  type AdaptiveSessionLimiterOptions,
  type AdaptiveSessionStatus,
  type SessionLimiter,
} from './ports/session-limiter.js';
export type { AttemptReport, CallPermit, RateControl, RateControlStatus } from './ports/rate-control.js';
export { systemClock, type Clock } from './ports/clock.js';
export { EngineEvent, EVENT_VERSION, MemoryEventSink, type EventSink, type EngineEventType } from './ports/events.js';

// adapters
export { DEFAULT_PATIENCE_MS, OpenAIModelClient, type OpenAIModelClientOptions } from './adapters/openai-client.js';
export { ProviderPatience } from './adapters/provider-patience.js';
export { BACKOFF, backoffMs, type ServerWaits } from './adapters/retry-policy.js';
export { isLoopbackUrl } from './adapters/loopback-url.js';
export { createRateController, fixedRateControl, type RateControllerOptions } from './adapters/rate-controller.js';
export { durationMs, readRateLimitHeaders, type QuotaReading, type RateLimitReading } from './adapters/rate-limit-headers.js';
export { rateLimitUnit } from './adapters/rate-limit-unit.js';
// The wire parser alone, so a test can read a reply it fetched itself exactly as the adapter would.
export { parseCompletion } from './adapters/openai-wire.js';
export { clearLeftovers, type LeftoverOptions } from './adapters/leftover-processes.js';
export { DEFAULT_LIMITS, DockerSandboxProvider, type DockerSandboxProviderOptions, type SandboxLimits } from './adapters/docker-sandbox.js';
export { ContainerShutdown } from './adapters/container-shutdown.js';
export { resolveTransport, type WorkspaceTransportChoice, type WorkspaceTransportKind } from './adapters/workspace-transport.js';
export { DockerHostSpec, dockerClientFor } from './adapters/docker-host.js';
export {
  DockerHostPool,
  isRetryableSandboxError,
  openDockerHostPool,
  withHostRetry,
  type DockerHostPoolOptions,
  type HostPreflight,
  type HostStatus,
} from './adapters/docker-host-pool.js';
export { SANDBOX_LABELS, assertDockerReachable, describeDockerHost, sandboxLabels } from './adapters/docker-daemon.js';
export { pruneSandboxes, type PruneOptions, type PruneResult } from './adapters/sandbox-prune.js';
export { processAlive } from './adapters/process-alive.js';
export { JsonlFile, JsonlDirectory, type JsonlDirectoryOptions, type JsonlFileOptions } from './adapters/jsonl-file.js';
export { DEFAULT_REQUEST_LAYOUT, openingMessages } from './runtime/request-layout.js';
export { MAX_BREAKPOINTS, contentWithBreakpoints } from './adapters/cache-breakpoints.js';
export { briefSections, goalSections, type BriefSections } from './runtime/brief.js';
export { TranscribingModelClient, TranscriptGapError, TranscriptLine, TranscriptRecorder, TranscriptVersion, TRANSCRIPT_VERSION, requestLayoutOf, requestShape, sessionRequests, type TranscriptRequest } from './adapters/transcript.js';

// runtime
export { ModelRouter, CONTRIBUTING_ROLES, UNBOUNDED_OUTPUT_TOKENS, type RouterOptions, type RouteRequest, type RoutedResponse } from './runtime/model-router.js';
export { ModelSpec, Tier, priceOf } from './runtime/model-spec.js';
export { UNPLACED, isUnplaced, placeModel } from './runtime/model-family.js';
export { Accounting, NodeAccount, PARENT_RESERVE, WORKER_CAP, type Room, type SessionCeilings } from './runtime/accounting.js';
export { askStructured, extractJson } from './runtime/structured.js';
export { runToolLoop, type DriftOpinion, type ToolLoopOptions, type ToolLoopResult } from './runtime/tool-loop.js';
export type { LoopWatcher, MonitorStep, MonitorVerdict, MonitorFlagKind } from './runtime/loop-watcher.js';
export { READ_ONLY_TOOLS, REVIEW_TOOLS, WORK_TOOLS, type Tool, type ToolContext, type ToolOutcome } from './runtime/tools.js';
export { promptFor } from './runtime/prompts.js';
export { WORKSPACE_SCAFFOLDING } from './runtime/workspace.js';
export * from './runtime/replies.js';

// court
export { classify, falsify, runChecks, type Falsification } from './court/checks.js';
export { gate, type GateInput, type GateOutcome, type Override, type VerifierOpinion } from './court/gate.js';
export { Monitor, type MonitorOptions } from './court/monitor.js';
export { DRIFT_ALLOWANCE } from './court/drift-judge.js';
export { repairLoop, type RepairRound, type RepairStop, type RepairLoopOptions } from './court/repair-loop.js';
export { openQuestions } from './court/questions.js';

// tree
export * from './tree/plan-rules.js';
export { cutToWidth, widthReask } from './tree/width-rule.js';
export { LoopStop, MergeAttempt, MergeRecord, NodeResult, NodeStop, StopCause, flatten } from './tree/node-result.js';
export { SELF_REVIEWED_REASON } from './tree/merge-loop.js';
export { BuiltTree, assemble, build, solve, type BuildOptions, type BuildSpend, type SolveOptions, type SolveRun } from './tree/solve.js';
