/**
 * The engine's public entry. Everything outside engine/ imports from here and nowhere else.
 */
export * from './base/errors.js';
export * from './base/check.js';
export * from './base/usage.js';
export * from './base/verdict.js';
export * from './base/secrets.js';
export * from './ports/sandbox.js';
export { DEFAULT_LIMITS, DockerSandboxProvider, type DockerSandboxProviderOptions, type SandboxLimits } from './adapters/docker-sandbox.js';
export { SANDBOX_LABELS, assertDockerReachable, describeDockerHost, sandboxLabels } from './adapters/docker-daemon.js';
export { pruneSandboxes, type PruneOptions, type PruneResult } from './adapters/sandbox-prune.js';
export { stableJson } from './base/stable-json.js';
export * from './ports/model-client.js';
export { OpenAIModelClient, type OpenAIModelClientOptions } from './adapters/openai-client.js';
export { ModelRouter, CONTRIBUTING_ROLES, UNBOUNDED_OUTPUT_TOKENS, type RouterOptions, type RouteRequest, type RoutedResponse } from './runtime/model-router.js';
export { ModelSpec, Tier, priceOf } from './runtime/model-spec.js';
export { UNPLACED, isUnplaced, placeModel } from './runtime/model-family.js';
export { UNLIMITED, type CallLimiter } from './ports/call-limiter.js';
export { Accounting, NodeAccount, PARENT_RESERVE, WORKER_CAP, type Room, type SessionCeilings } from './runtime/accounting.js';
export { Monitor, type MonitorOptions } from './court/monitor.js';
export type { LoopWatcher, MonitorStep, MonitorVerdict, MonitorFlagKind } from './runtime/loop-watcher.js';
export { gate, type GateInput, type GateOutcome, type Override, type VerifierOpinion } from './court/gate.js';
export { classify, falsify, runChecks, type Falsification } from './court/checks.js';
export * from './tree/plan-rules.js';
export { repairLoop, type RepairRound, type RepairStop, type RepairLoopOptions } from './court/repair-loop.js';
export { EngineEvent, EVENT_VERSION, MemoryEventSink, type EventSink, type EngineEventType } from './ports/events.js';
export { systemClock, type Clock } from './ports/clock.js';
export { JsonlFile, JsonlDirectory, type JsonlFileOptions } from './adapters/jsonl-file.js';
export { TranscribingModelClient, TranscriptLine, TRANSCRIPT_VERSION } from './adapters/transcript.js';
export { askStructured, extractJson } from './runtime/structured.js';
export { runToolLoop, type DriftOpinion, type ToolLoopOptions, type ToolLoopResult } from './runtime/tool-loop.js';
export { READ_ONLY_TOOLS, WORK_TOOLS, type Tool, type ToolContext, type ToolOutcome } from './runtime/tools.js';
export { promptFor } from './runtime/prompts.js';
export { NodeResult, NodeStop, StopCause, flatten } from './tree/node-result.js';
export { openQuestions } from './court/questions.js';
export { solve, type SolveOptions, type SolveRun } from './tree/solve.js';
export * from './runtime/replies.js';
