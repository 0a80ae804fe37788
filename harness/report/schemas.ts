/**
 * The run-file schemas a reader of a recorded run needs (the results site among them), from
 * modules that are zod and data only: no files, no engine, no Docker. report.json is `Report`;
 * a journal's measured cell is `CellMeasurement`.
 */
export * from './report-schema.js';
export { CellMeasurement, MeasuredLeaf, MeasuredMerge, MeasuredReview, LeafClaim, Escalation, ModelIdentity, Spend, survivalTally, cellCounts, reviewRelation } from '../journal/cell-measurement.js';
export { CostModel, Forecast } from '../plan/forecast.js';
export { ClaimRow } from './claim-schema.js';
