/**
 * The engine's public entry. Everything outside engine/ imports from here and nowhere else.
 */
export * from './errors.js';
export * from './sandbox.js';
export { DEFAULT_LIMITS, DockerSandboxProvider, type DockerSandboxProviderOptions, type SandboxLimits } from './docker-sandbox.js';
export { SANDBOX_LABELS, assertDockerReachable, describeDockerHost, sandboxLabels } from './docker-daemon.js';
export { pruneSandboxes, type PruneOptions, type PruneResult } from './sandbox-prune.js';
export { stableJson } from './internal/stable-json.js';
export * from './model-client.js';
export { OpenAIModelClient, type OpenAIModelClientOptions } from './openai-client.js';
export { ModelRouter, ModelSpec, Tier, CONTRIBUTING_ROLES, priceOf, type RouterOptions, type RouteRequest, type RoutedResponse } from './model-router.js';
export { Accounting, NodeAccount, PARENT_RESERVE, WORKER_CAP } from './accounting.js';
export { Monitor, type MonitorOptions, type MonitorStep, type MonitorVerdict } from './monitor.js';
export { gate, Verdict, type GateInput, type GateOutcome, type Override, type VerifierOpinion } from './gate.js';
export { Check, CheckResult, classify, falsify, runChecks, type Falsification } from './checks.js';
export * from './plan-rules.js';
export { repairLoop, type RepairRound, type RepairStop, type RepairLoopOptions } from './repair-loop.js';
export { EngineEvent, EVENT_VERSION, MemoryEventSink, type EventSink, type EngineEventType } from './events.js';
export { systemClock, type Clock } from './clock.js';
export { JsonlFile, JsonlDirectory, type JsonlFileOptions } from './jsonl-file.js';
export { TranscribingModelClient, TranscriptLine, TRANSCRIPT_VERSION } from './transcript.js';
export { askStructured, extractJson, StructuredOutputError } from './structured.js';
export { promptFor } from './prompts.js';
export { NodeResult, flatten } from './node-result.js';
export { solve, type SolveOptions, type SolveRun } from './solve.js';
export * from './replies.js';
