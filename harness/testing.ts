/**
 * The harness's test seams: the in-memory CLI io, the record and replay seams, and the
 * internals tests reach (the sim population's draws, the record loop's parts, the stats'
 * helpers). Only tests import this (tests/architecture.test.ts holds it); the public entry
 * is harness/index.ts.
 */
export { bufferIo } from './io.js';
export { addCall, measureCell, sessionsOfCharges, type MeasureInput, type SessionSpend } from './cell/cell-measure.js';
export { resolveClaim } from './cell/claim-resolution.js';
export { runPair, oracleGrader, type PairRun, type PairRunOptions, type ArmOutcome, type TreeGrader } from './cell/pair-run.js';
export { specObjective, criterionLine, type SpecObjective } from './cell/spec-objective.js';
export { revealFailures } from './grading/failure-reveal.js';
export { stageScratch } from './grading/grader.js';
export { runGradingContainer, type ContainerRun } from './grading/grading-container.js';
export { stageTree, resolveInside, TREE_LIMITS, type StagedTree, type TreeLimits } from './grading/tree-staging.js';
export { canonicalJson, digestOf } from './internal/canonical-json.js';
export { MAX_DATA_FILE_BYTES } from './internal/data-file.js';
export { TEXT_LIMITS } from './internal/text-limits.js';
export { MAX_SPEC_ENTRIES, SPEC_FILES } from './manifest/spec-folder.js';
export { sessionCeiling, reduceSessionCeiling, sessionCeilingFrom, mayDispatch, costCeiling, mayCall, reduceCost, unitCeilings, reduceUnit, mayContinue, ceilingBelowNextCell, type SessionCeiling, type DispatchDecision, type CostCeiling, type UnitCeilings, type UnitSpend, NO_SPEND, type UnitCall, type UnitVerdict } from './record/ceilings.js';
export { createProgressDisplay, type ProgressDisplay, type ProgressDisplayOptions, type ProgressStream } from './record/progress-display.js';
export { duration, eta, initialProgress, oneLine, progressFrom, reduceProgress, renderFrame, renderLine, type CellStatus, type FrameOptions, type ProgressSetup, type ProgressState } from './record/progress.js';
export { type RecordSeams } from './record/record.js';
export { RecordedCallClient, ReplayDivergenceError, mismatch, normaliseText, type RecordedCallClientOptions, type ReplayMode } from './record/recorded-client.js';
export { leftoversLine, newRunId, removeLeftovers, type Leftovers } from './record/run-leftovers.js';
export { openRunFolder, type OpenRunOptions, type OpenedRun } from './record/run-opening.js';
export { countsLine, stagedCounts } from './record/run-summary.js';
export { SessionGate, SessionRefusedError } from './record/session-gate.js';
export { endLine, exitOfEnd, resumeTable, sweepEnd, type SweepCounts, type SweepEnd } from './record/sweep-exit.js';
export { sweepModels, type SweepModels } from './record/sweep-models.js';
export { canonicalForm, treeDifference } from './replay/replay-compare.js';
export { type ReplaySeams } from './replay/replay.js';
export { measuredSpend } from './report/cost-panel.js';
export { survivalSection } from './report/survival-figures.js';
export { plantedTruth, pooledTruth, type PlantedTruth, type TruthOptions } from './report/planted-truth.js';
export { faceLines } from './report/report-face.js';
export { rule, rulingSection, registrationProblem, rulingLines, type RulingInput } from './report/ruling.js';
export { CORPORA_DIR, DEFECTS_FILE, corpusDir, testSupportFiles, testFileFor, loadDefectTable, readCorpus, type SimCorpus } from './sim/corpus-files.js';
export { leafDraws, seamDraws, applySeams, recallOf, reviewDraws, repairDraws, continuesAfterReview, mergeLoop, type SimClaim, type SimLeafDraws, type SimSeamDefect, type SimMergeAttempt, type SimMergeLoop } from './sim/decisions.js';
export { DefectModelError, isolatedDefects, pickVariant, brokenRequirements, passingRequirements, type DefectModel, type DefectVariant, type PresentDefects } from './sim/defect-model.js';
export { DEFECT_MARKER, DefectTableError, PlantedDefect, DefectTable, defectModelOf, uncoveredRequirements, defectById, applyDefects, findMarkers, type DefectMarker } from './sim/defect-table.js';
export { draw, drawKeyText, identityDraws, streamDraws, type DrawKey, type DecisionKey, type DrawSource, type SimCell, type SimRole } from './sim/draw.js';
export { sampleShared, sampleArm, samplePair, levelCounts, mergeSurvival, type SimTreeNode, type SimLeafRecord, type SimSharedPhase, type SimMergeRecord, type SimLevelCount, type SimMergeLevelCount, type SimClaimGrade, type SimClaimTrace, type SimMergeSurvival, type SimArmSample, type SimPairSample, type SimPairOptions } from './sim/sampler.js';
export { treeFiles, leafTreeSpec, defectsIn, UNDELIVERED_TEST_FILE, type TreeSpec } from './sim/sim-tree.js';
export { planNode, hasRoom, childPath, chunkSizes, splitChunks, pickBranching, type SimPlan, type SimNodeInput, type SimLeafReason } from './sim/tree-shape.js';
export { expectedSurvival, expectedCurves, achievedDepthDistribution, nodeProbabilities, type SimTruthOptions, type SimLevelTruth, type SimMergeTruth, type SimArmTruth, type ArmTruthByCap } from './sim/truth.js';
export { comparisonDifference, comparisonPValue, comparisonTallies } from './stats/comparison.js';
export { holmLevels } from './stats/holm.js';
export { callKey, latencyMs, type TryIdentity } from './sim/serve/fault-draws.js';
export { ServerStats } from './sim/serve/server-stats.js';
export { goDuration } from './sim/serve/rate-buckets.js';
export { CACHE_DEFAULTS, PromptCache } from './sim/serve/prompt-cache.js';
export { promptText, promptTokens } from './sim/serve/prompt-text.js';
export { ChatCompletionBody, requestFromWire, completionBody } from './sim/serve/wire-request.js';
export { simPathOf } from './sim/population/sim-world.js';
export { PairEventFiles } from './record/pair-events.js';
export { textWidth } from './report/charts/text-width.js';
export { titledMarks } from './report/render-svg.js';
export { familyDisagreement, vendorOf } from './providers/model-probe-vendors.js';
export { textTable } from './internal/text-table.js';
export { cacheShareByRole, firstCallCacheShare } from './journal/cache-share.js';
export { type CacheShare } from './journal/cache-share-schema.js';
export { cacheLines } from './plan/plan-cache.js';
export { rateEvent, startRateWatch, type RateView } from './record/rate-watch.js';
export { controllersOf, renderSummary, summarise } from './record/run-summary.js';
export { recordedLayout } from './replay/replay-layout.js';
export { TASK_FILE, TaskDefinition, TaskInvalidError, loadTaskDefinition } from './task/task-definition.js';
export { simChecks, testCommand } from './sim/population/sim-checks.js';
export { gatherCommand } from './sim/population/merger.js';
