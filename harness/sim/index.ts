/**
 * The SIMULATED agent population's pure core: planted parameters, identity-keyed draws, the
 * tree-shape and decision model shared by the pure sampler and the sim ModelClient, and the
 * exact closed-form truth the harness must recover.
 */
export { SimParams, DEFAULT_BRANCHING, branchingTable, plantedText, collapseOf } from './sim-params.js';
export { draw, drawKeyText, identityDraws, streamDraws, type DrawKey, type DecisionKey, type DrawSource, type SimCell, type SimRole } from './draw.js';
export { planNode, hasRoom, childPath, chunkSizes, splitChunks, pickBranching, type SimPlan, type SimNodeInput, type SimLeafReason } from './tree-shape.js';
export {
  DefectModelError,
  isolatedDefects,
  pickVariant,
  brokenRequirements,
  passingRequirements,
  type DefectModel,
  type DefectVariant,
  type PresentDefects,
} from './defect-model.js';
export {
  leafDraws,
  seamDraws,
  collapseDraws,
  applySeams,
  recallOf,
  reviewDraws,
  repairDraws,
  continuesAfterReview,
  mergeLoop,
  type SimClaim,
  type SimLeafDraws,
  type SimSeamDefect,
  type SimCollapseDefect,
  type SimMergeAttempt,
  type SimMergeLoop,
} from './decisions.js';
export {
  sampleShared,
  sampleArm,
  samplePair,
  levelCounts,
  mergeSurvival,
  type SimTreeNode,
  type SimLeafRecord,
  type SimSharedPhase,
  type SimMergeRecord,
  type SimLevelCount,
  type SimMergeLevelCount,
  type SimClaimGrade,
  type SimClaimTrace,
  type SimMergeSurvival,
  type SimArmSample,
  type SimPairSample,
  type SimPairOptions,
} from './sampler.js';
export { expectedSurvival, expectedCurves, achievedDepthDistribution, nodeProbabilities, type SimTruthOptions, type SimLevelTruth, type SimMergeTruth, type SimArmTruth, type ArmTruthByCap } from './truth.js';
export {
  DEFECT_MARKER,
  DefectTableError,
  PlantedDefect,
  DefectTable,
  defectModelOf,
  uncoveredRequirements,
  defectById,
  applyDefects,
  findMarkers,
  type DefectMarker,
} from './defect-table.js';
export { CORPORA_DIR, DEFECTS_FILE, corpusDir, testSupportFiles, testFileFor, loadDefectTable, readCorpus, type SimCorpus } from './corpus-files.js';
export { treeFiles, leafTreeSpec, defectsIn, UNDELIVERED_TEST_FILE, type TreeSpec } from './sim-tree.js';
