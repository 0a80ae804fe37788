/** The harness's public entry: the CLI and the pieces other tools may script. */
export { runCli, buildProgram } from './cli.js';
export { EXIT, EXIT_DESCRIPTIONS, UsageError, exitCodeFor } from './exit-codes.js';
export { bufferIo, processIo, type CliIo } from './io.js';
export * from './sandbox-image.js';
export { canonicalJson, digestOf } from './internal/canonical-json.js';
