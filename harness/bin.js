#!/usr/bin/env node
// The `harness` binary: registers tsx so the TypeScript sources run as they are, no build step.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('./cli.ts');
const { dropWritesToClosedPipes } = await import('./io.ts');
dropWritesToClosedPipes();
process.exitCode = await runCli(process.argv.slice(2));
