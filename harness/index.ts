/** The harness's public entry: the CLI and the pieces other tools may script. */
export { runCli, buildProgram } from './cli.js';
export { EXIT, EXIT_DESCRIPTIONS, UsageError, exitCodeFor } from './exit-codes.js';
export { bufferIo, processIo, type CliIo } from './io.js';
export * from './sandbox-image.js';
export { canonicalJson, digestOf } from './internal/canonical-json.js';
export * from './manifest.js';
export { ManifestInvalidError, loadManifest, manifestDigest, sameFamilyCaveat, type LoadedManifest } from './internal/manifest-loader.js';
export { selectDepths, withMaxSessions } from './internal/manifest-staging.js';
export * from './provider-config.js';
export * from './plan-arithmetic.js';
export * from './plan-report.js';
export { jsonSchemaFiles } from './schema/json-schemas.js';
