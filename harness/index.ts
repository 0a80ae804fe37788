/**
 * The harness's public entry: the CLI and the pieces other tools may script, each named (never
 * `export *`: tests/architecture.test.ts holds it). What only tests reach (fakes, internals,
 * the record and replay seams) is harness/testing.ts.
 */
export { runCli, buildProgram, VERSION } from './cli.js';
export { BUG_CODES, EXIT, EXIT_BY_CODE, EXIT_DESCRIPTIONS, UsageError, exitCodeFor, exitCodeTable, type ExitCode } from './exit-codes.js';
export { dropWritesToClosedPipes, processIo, type CliIo } from './io.js';
export { HELD_OUT_MARKER, REPO_ROOT, oracleDir, specDir } from './paths.js';
export { runRecord } from './commands/record.js';
export { renderGrade } from './grading/grade-report.js';
export { gradeTree, loadSpecOracle, type GradeOptions } from './grading/grader.js';
export { GradingRefusedError } from './grading/grading-container.js';
export { GradeResult, RunnerReport } from './grading/grading-report.js';
export { loadOracle, OracleCase, OracleInvalidError, formatOf, type Oracle } from './grading/oracle-cases.js';
export { loadRequirements, Requirement, SpecInvalidError } from './grading/spec-requirements.js';
export { survivalTally, cellCounts, reviewRelation, totalSpend, withEstimated, ModelIdentity, LeafClaim, MeasuredLeaf, MeasuredReview, MeasuredMerge, Escalation, Spend, CellMeasurement, type CellCounts, type ReviewRelation } from './journal/cell-measurement.js';
export { CodeIdentity, readCodeIdentity, type CodeIdentityOptions } from './journal/code-identity.js';
export { FolderDigest, digestFolder } from './journal/folder-digest.js';
export { type JournalProblem, JournalInvalidError, JournalBusyError, JournalWriteError, JournalEventError } from './journal/journal-error.js';
export { journalEvent, journalFormat, JournalEnvelope, type JournalFormat, type JournalInput } from './journal/journal-format.js';
export { JournalPins, PinnedFolder, PinnedPair, JournalMismatchError, assertPinsMatch, collectPins, comparePins, firstDifference, pinPair, readHarnessVersion, type ComparePinsOptions, type PinComparison, type PinField, type PinSources } from './journal/journal-header.js';
export { readJournal, type JournalContents, type ReadJournalOptions } from './journal/journal-read.js';
export { openJournal, readAndOpenJournal, type OpenJournalOptions, Journal } from './journal/journal.js';
export { JsonData, type JsonValue } from './journal/json-value.js';
export { cellId, parseCellId, pairId, sessionFileName, runPaths, defaultRunName, inspectRunFolder, createRunFolder, claimDefaultRunFolder, CellId, type CellKey, type CellPaths, type RunPaths, type RunFolderState } from './journal/run-folder.js';
export { SessionTokens } from './journal/session-tokens.js';
export { CellOutcome, SessionStop, StopReason, SWEEP_JOURNAL, headerOf, readSweepJournal, type SweepEvent, type SweepEventInput, type SweepEventOf, type SweepEventType } from './journal/sweep-events.js';
export { completedCalls, readTranscripts, type RecordedCall } from './journal/transcripts.js';
export { comparisonName, hypothesisPin, hypothesisProblems, Comparison, comparisonDepth, Hypothesis } from './manifest/hypothesis.js';
export { ManifestInvalidError, loadManifest, manifestDigest, sameFamilyCaveat, type LoadedManifest } from './manifest/manifest-loader.js';
export { selectDepths, withMaxSessions } from './manifest/manifest-staging.js';
export { familyName, repetitionsAt, allocationOf, gradeMergesOf, pairDifferenceSdOf, ARMS, Arm, Independence, DEFAULT_PAIR_DIFFERENCE_SD, MAX_DEPTH_CAP, Family, ModelPair, Pairing, DEFAULT_ALLOCATION, Manifest } from './manifest/manifest.js';
export { learnCostModel, forecastCells, expectedTree, type NodeCost, type LearnOptions, CostModel, Forecast } from './plan/forecast.js';
export { cellOrder, treeShape, roleOfSession, cellSessions, pairSessions, ownSessions, mergeGradings, sessionPriceUsd, sessionsByPair, applyCeiling, projectPlan, planInputFor, firstUncountable, type Cell, type TreeShape, COURT, SessionKind, SESSION_ROLES, type SessionsByKind, type CellSessions, type PairSessions, type BillBasis, type OwnSessions, type Price, type Pricing, type PlanInput, type GradeMergesSource, GRADING_SECONDS, type CapMergeGradings, type MergeGradings, type CapProjection, type CellFate, type CellProjection, type CeilingVerdict, type PlanProjection, isCountable, type UncountableFigure } from './plan/plan-arithmetic.js';
export { planHypothesis, hypothesisLines, type PlanHypothesis, type ComparisonPower } from './plan/plan-hypothesis.js';
export { buildPlanReport, renderPlanText, renderPlanJson, INPUT_PER_OUTPUT, PLAN_REPORT_VERSION, type PlanReport, type PlanReportOptions } from './plan/plan-report.js';
export { clientsFromConfig, configuredKeys, rosterFromConfig, type ClientsOptions } from './providers/engine-roster.js';
export { loadProviderConfig, locateProviderConfig, providerConfigPath, requireProviderConfig, checkProviderConfig, priceOf, apiKeyFor, ProviderEndpoint, ModelEntry, ProviderConfig, ProviderConfigInvalidError, type LoadedProviderConfig, PROVIDERS_ENV, type ProviderConfigLocation } from './providers/provider-config.js';
export { pairOfRole, ModelPairName, EXECUTOR_ROLES, JUDGE_ROLES } from './providers/role-pairs.js';
export { SIMULATED_TAG } from './providers/sweep-roster.js';
export { type RecordFlags, type RecordResult } from './record/record.js';
export { runReplay, renderReplay, type ReplayFlags, type ReplayResult, type CellReplay, type CellReplayStatus } from './replay/replay.js';
export { buildReport, type ReportInput } from './report/build-report.js';
export { CHARTS, chartSpecs } from './report/chart-list.js';
export { readRecordedRun, type RecordedRun } from './report/read-run.js';
export { renderSvg, type RenderedChart } from './report/render-svg.js';
export { renderMarkdown } from './report/report-markdown.js';
export { REPORT_VERSION, ArmFigure, DifferenceFigure, PooledFigure, LevelRow, PooledRow, CapRow, CellRowStatus, CellResult, CellRow, DepthBin, CostRow, JudgeRow, IndependenceAudit, Caveat, ChartEntry, RulingWord, RulingComparison, RulingSection, Report } from './report/report-schema.js';
export { renderSummary } from './report/report-summary.js';
export { writeReport, reportJson, type WriteReportOptions, type WrittenReport } from './report/write-report.js';
export { parseDockerHostFlag, dockerHostsFrom, collectDockerHost } from './sandbox/docker-hosts.js';
export { recipeDigest, sandboxImageTag, dockerfileFor, buildSandboxImage, sandboxImageStatus, SANDBOX_RECIPE, SANDBOX_REPOSITORY, BuildMethod, SandboxBuildError, type BuildOptions, type BuildResult, ImageStatus } from './sandbox/sandbox-image.js';
export { jsonSchemaFiles } from './schema/json-schemas.js';
export { SimParams, DEFAULT_BRANCHING, branchingTable, plantedText } from './sim/sim-params.js';
export { ratioEstimate, pairedDifference, clusterStandardError, type Cluster, type LinearizedEstimate } from './stats/cluster-ratio.js';
export { Interval, CALIBRATED_FROM_PAIRS, covers, uncalibratedLabel, assumedSpreadOf, boundedInterval, type Quantity as IntervalQuantity } from './stats/interval.js';
export { PowerQuery, MinimumDetectable, minimumDetectableDifference, pairedTestPower, pairDifferenceSd } from './stats/power.js';
export { stratify, type StratumEstimate, type Stratified } from './stats/stratified.js';
export { LevelTally, CellTally, SurvivalData, SurvivalDataInvalidError, SurvivalOptions, SurvivalStats, survivalStats, type ArmEstimate, type DifferenceEstimate, type CapStats, type PooledEstimate } from './stats/survival-stats.js';
export { tQuantile, normalQuantile, normalCdf, noncentralTCdf } from './stats/t-distribution.js';
export { predictCell } from './sim/population/predict.js';
export { SimPopulation } from './sim/population/sim-population.js';
export { simSetup, DEFAULT_SIM_PAIRS, type SimSetup, type SimSetupOptions } from './sim/population/sim-setup.js';
export { FaultPlan, FaultWindow, LatencyPlan, LimitsPlan, RateLimitPlan, FaultPlanInvalidError, loadFaultPlan, type LoadedFaultPlan } from './sim/serve/fault-plan.js';
export { SimRequestRefusedError, SimServerListenError } from './sim/serve/serve-errors.js';
export { startSimServer, DEFAULT_SIM_PORT, SIM_SERVER_HOST, type SimServer, type SimServerOptions } from './sim/serve/sim-server.js';
/** The run-file schemas, the one module the results site imports (see run-files.ts). */
export * as runFiles from './run-files.js';
