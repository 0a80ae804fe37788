import { stableJson } from '../base/stable-json.js';
import type { LoopWatcher, MonitorStep, MonitorVerdict } from '../runtime/loop-watcher.js';

export interface MonitorOptions {
  /** Identical calls in a row that count as a loop. Default 3. */
  repeatLimit?: number;
  /** Steps with no file written and no change in the check pass count. Default 5. */
  noProgressLimit?: number;
  /** Consult the drift judge every this many steps. Default 6. */
  driftEvery?: number;
}

/**
 * Free heuristics after every tool call. They cost nothing, so they run always; the model
 * drift judge runs only when one of them (or a schedule) trips. Genuine progress (a file
 * changed, or the check pass count moved) clears all loop suspicion: re-running the checks
 * after a fix is the behaviour wanted, even when it is the third identical call.
 */
export class Monitor implements LoopWatcher {
  private readonly repeatLimit: number;
  private readonly noProgressLimit: number;
  private readonly driftEvery: number;
  /** Calls since the check pass count last moved: where oscillation is looked for. */
  private keys: string[] = [];
  /** Calls since the last genuine progress: where repeats are looked for. */
  private repeatKeys: string[] = [];
  private sinceProgress = 0;
  private steps = 0;
  private lastPassCount: number | null = null;
  /** Every write seen, so rewriting a file back to an earlier state is not counted as progress. */
  private readonly writes = new Set<string>();

  constructor(
    /** Text of the node's checks; a write to a path none of them mentions triggers the drift judge. */
    private readonly checkText: string,
    options: MonitorOptions = {},
  ) {
    this.repeatLimit = options.repeatLimit ?? 3;
    this.noProgressLimit = options.noProgressLimit ?? 5;
    this.driftEvery = options.driftEvery ?? 6;
  }

  /** The workspace state before the first call, so returning to it is not counted as progress. */
  begin(state: string): void {
    this.writes.add(state);
  }

  observe(step: MonitorStep): MonitorVerdict {
    this.steps++;
    // Object keys sorted: the same call with its arguments reordered is the same call.
    const key = `${step.tool}:${stableJson(step.args ?? null)}`;
    const passMoved =
      step.checkPassCount != null && this.lastPassCount != null && step.checkPassCount !== this.lastPassCount;
    if (step.checkPassCount != null) this.lastPassCount = step.checkPassCount;
    // Undoing one's own work (write A, write B, write A...) changes the file every time; only a
    // write reaching a workspace state never seen before is genuine progress.
    const written = step.state ?? key;
    const newWrite = step.wroteFile && !this.writes.has(written);
    if (step.wroteFile) this.writes.add(written);
    const progress = newWrite || passMoved;

    const flags: MonitorVerdict['flags'] = [];
    // A moved pass count ends any cycle; a new write does not, since a cycle of writes is
    // exactly what undoing one's own work looks like.
    this.keys = passMoved ? [key] : [...this.keys, key].slice(-12);
    if (progress) {
      this.repeatKeys = [key];
      this.sinceProgress = 0;
    } else {
      this.repeatKeys.push(key);
      this.sinceProgress++;
      const tail = this.repeatKeys.slice(-this.repeatLimit);
      if (tail.length === this.repeatLimit && tail.every((x) => x === tail[0])) {
        flags.push({ kind: 'repeat', detail: `${step.tool} called ${this.repeatLimit} times in a row with the same arguments` });
      } else if (isPeriodic(this.keys, 2) || isPeriodic(this.keys, 3)) {
        flags.push({ kind: 'oscillation', detail: `the last calls alternate with period ${isPeriodic(this.keys, 2) ? 2 : 3}` });
      }
      if (this.sinceProgress >= this.noProgressLimit) {
        flags.push({ kind: 'no_progress', detail: `${this.sinceProgress} steps with no file written and no change in checks passing` });
      }
    }

    // A flag ends the attempt by itself; the judge is for what the free heuristics cannot call.
    if (flags.length) return { flags, consultDrift: null };
    if (this.steps % this.driftEvery === 0) return { flags, consultDrift: `scheduled after ${this.steps} steps` };
    const unchecked = (step.writtenPaths ?? []).find((p) => !this.checkText.includes(p) && !this.checkText.includes(baseName(p)));
    return { flags, consultDrift: unchecked ? `wrote ${unchecked}, which no check mentions` : null };
  }
}

/** A-B-A-B (period 2) or A-B-C-A-B-C (period 3) at the end of the sequence, with distinct members. */
function isPeriodic(keys: string[], period: number): boolean {
  if (keys.length < period * 2) return false;
  const tail = keys.slice(-period * 2);
  const cycle = tail.slice(0, period);
  if (new Set(cycle).size !== period) return false;
  return tail.every((k, i) => k === cycle[i % period]);
}

function baseName(p: string): string {
  return p.split('/').pop() ?? p;
}
