import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { priceOf, type ModelSpec } from '../../engine/index.js';
import { parseLines } from './transcripts.js';

/**
 * What a run paid: the ONE definition the progress display, summary.json, the report and the
 * site all show (docs/redaction.md, "One figure for what was paid").
 *
 * Every live call of every invocation, each once, read from the run's transcripts: a live call
 * writes one response line (or one error line), and a call answered from a transcript on a
 * resume is never written again, so it is never paid again and never added again. Lines a
 * resume superseded count too: they were paid. Attempts the server may have answered but the
 * client never received are added at their worst-case charge (a response's or an error's
 * `unreceived`). Each call is priced by the roster entry of the model asked; a model without a
 * price adds nothing and is counted in `unpricedCalls` (a figure that includes one is
 * "unknown", never $0). The one-token warm-up of each invocation is not transcribed and not counted.
 */
export interface Paid {
  usd: number;
  /** Live calls that were billed (response lines, and error lines with unreceived attempts). */
  calls: number;
  /** Of them, calls whose model has no price. */
  unpricedCalls: number;
}

/** The models' prices as the roster (or the journal's pinned roster) gives them. */
export type PriceList = ReadonlyArray<{ model: string; prices?: ModelSpec['prices'] | null }>;

export async function paidFromTranscripts(cellsDir: string, roster: PriceList): Promise<Paid> {
  const paid: Paid = { usd: 0, calls: 0, unpricedCalls: 0 };
  const cells = await readdir(cellsDir).catch(() => [] as string[]);
  for (const cell of cells.sort()) {
    const dir = path.join(cellsDir, cell, 'transcripts');
    for (const file of (await readdir(dir).catch(() => [] as string[])).filter((f) => f.endsWith('.jsonl')).sort()) {
      const lines = parseLines(await readFile(path.join(dir, file), 'utf8'));
      const asked = new Map<number, string>();
      for (const line of lines) {
        // A request opens its call; a resumed session's request numbered again supersedes the
        // earlier one's model (the same call asked again, and paid again when answered).
        if (line.type === 'request') {
          asked.set(line.call, line.model);
          continue;
        }
        const usages = line.type === 'response' ? [line.usage, ...(line.unreceived ? [line.unreceived.usage] : [])] : line.unreceived ? [line.unreceived.usage] : [];
        if (usages.length === 0) continue;
        const model = asked.get(line.call) ?? line.model;
        const entry = roster.find((m) => m.model === model);
        paid.calls++;
        if (!entry?.prices) {
          paid.unpricedCalls++;
          continue;
        }
        const spec = { prices: entry.prices } as ModelSpec;
        for (const usage of usages) paid.usd += priceOf(spec, usage);
      }
    }
  }
  return paid;
}
