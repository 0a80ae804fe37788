import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter that prints the ten slowest test files when the run ends (`.ci/run` adds it
 * beside the default one), so the CI log names the files that make the suite slow. A file's time
 * is what it cost its worker: the harness's setup, importing it (collection), setup files and
 * every test and hook; files run two at a time, so the times add up to about twice the wall time.
 */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const times = testModules.map(fileTime);
    process.stdout.write(`\n${slowestFiles(times, 10)}\n`);
    // Every file's time, slowest first, for the one who cuts the suite next (.ci/run names the file).
    const all = process.env.RDH_TEST_TIMES;
    if (all) writeFileSync(all, `${JSON.stringify([...times].sort((a, b) => b.seconds - a.seconds), null, 1)}\n`);
  }
}

/** One file's time in seconds, from vitest's diagnostic of it. */
export function fileTime(module: TestModule): { file: string; seconds: number; state: string } {
  const d = module.diagnostic();
  const ms = d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration + d.duration;
  return { file: module.relativeModuleId, seconds: Number.isFinite(ms) ? ms / 1000 : 0, state: module.state() };
}

/** The `count` slowest files as a table, slowest first. */
export function slowestFiles(files: ReadonlyArray<{ file: string; seconds: number; state: string }>, count: number): string {
  const shown = [...files].sort((a, b) => b.seconds - a.seconds).slice(0, count);
  const lines = shown.map((f) => `${f.seconds.toFixed(1).padStart(8)} s  ${f.file}${f.state === 'passed' ? '' : `  (${f.state})`}`);
  return [`the ${shown.length} slowest of ${files.length} test files (each file's own time: setup, import, tests):`, ...lines].join('\n');
}
