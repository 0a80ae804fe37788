/** The harness's public entry: the CLI and the pieces other tools may script. */
export { runCli, buildProgram, VERSION } from './cli.js';
export { BUG_CODES, EXIT, EXIT_BY_CODE, EXIT_DESCRIPTIONS, UsageError, exitCodeFor, exitCodeTable, type ExitCode } from './exit-codes.js';
export { bufferIo, dropWritesToClosedPipes, processIo, type CliIo } from './io.js';
export * from './sandbox/sandbox-image.js';
export { canonicalJson, digestOf } from './internal/canonical-json.js';
export * from './manifest/manifest.js';
export { ManifestInvalidError, loadManifest, manifestDigest, sameFamilyCaveat, type LoadedManifest } from './manifest/manifest-loader.js';
export { selectDepths, withMaxSessions } from './manifest/manifest-staging.js';
export * from './providers/provider-config.js';
export * from './plan/plan-arithmetic.js';
export * from './plan/plan-report.js';
export * from './sim/index.js';
export { jsonSchemaFiles } from './schema/json-schemas.js';
export { gradeTree, loadSpecOracle, GradingRefusedError, type GradeOptions } from './grading/grader.js';
export { GradeResult, RunnerReport } from './grading/grading-report.js';
export { renderGrade } from './grading/grade-report.js';
export { loadOracle, OracleCase, OracleInvalidError, type Oracle } from './grading/oracle-cases.js';
export { loadMutants, applyMutant, Mutant } from './grading/oracle-mutants.js';
export { loadRequirements, Requirement, SpecInvalidError } from './grading/spec-requirements.js';
export { HELD_OUT_MARKER, REPO_ROOT, oracleDir, specDir } from './paths.js';
export { MAX_SPEC_ENTRIES, SPEC_FILES } from './manifest/spec-folder.js';
export { MAX_DATA_FILE_BYTES } from './internal/data-file.js';
export { TEXT_LIMITS } from './internal/text-limits.js';
export * from './stats/index.js';
export * from './sweep/index.js';
/** The run-file schemas, the one module the results site imports (see run-files.ts). */
export * as runFiles from './run-files.js';
