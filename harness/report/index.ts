/**
 * harness/report: the report of a recorded sweep. A pure core (buildReport, the chart specs,
 * report.md and the terminal summary are functions of data) and a thin IO shell (writeReport).
 */
export * from './schemas.js';
export { buildReport, type ReportInput } from './build-report.js';
export { CHARTS, chartSpecs } from './chart-list.js';
export { plantedTruth, pooledTruth, type PlantedTruth, type TruthOptions } from './planted-truth.js';
export { renderMarkdown } from './report-markdown.js';
export { renderSummary } from './report-summary.js';
export { faceLines } from './report-face.js';
export { renderSvg, type RenderedChart } from './render-svg.js';
export { readRecordedRun, type RecordedRun } from './read-run.js';
export { writeReport, reportJson, type WriteReportOptions, type WrittenReport } from './write-report.js';
export { measuredSpend } from './cost-panel.js';
export { mergeDecaySection, MergeDecay, claimFate } from './merge-decay.js';
export { beyondClaimsSection, BeyondClaims, BeyondClaimsRow } from './beyond-claims.js';
export { claimRows, ClaimRow } from './claim-rows.js';
export { rule, rulingSection, registrationProblem, rulingLines, type RulingInput } from './ruling.js';
