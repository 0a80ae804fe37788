import { median, quantile } from 'simple-statistics';

export interface Figure {
  name: string;
  /** Sample size behind the median. */
  n: number;
  medianMs: number;
  p90Ms: number;
  /** Median divided by the floor measured in the same run, when there is one. */
  ratio?: number;
  note?: string;
}

export async function sample(n: number, fn: () => Promise<unknown>, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times;
}

export function figure(name: string, times: number[], floorMs?: number, note?: string): Figure {
  const med = median(times);
  return {
    name,
    n: times.length,
    medianMs: Math.round(med * 10) / 10,
    p90Ms: Math.round(quantile(times, 0.9) * 10) / 10,
    ratio: floorMs ? Math.round((med / floorMs) * 100) / 100 : undefined,
    note,
  };
}

export function table(figures: Figure[]): string {
  const rows = figures.map((f) => [f.name, String(f.n), f.medianMs.toFixed(1), f.p90Ms.toFixed(1), f.ratio?.toFixed(2) ?? '', f.note ?? '']);
  const head = ['benchmark', 'n', 'median ms', 'p90 ms', 'x floor', 'note'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
