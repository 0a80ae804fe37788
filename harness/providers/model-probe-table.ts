import { EXIT } from '../exit-codes.js';
import { textTable } from '../internal/text-table.js';
import type { ModelProbe, ModelsReport, ProbeResult } from './model-probe-record.js';

/**
 * The text `harness models` prints: one row per configured model, a capability per column
 * (`yes`, `no`, `error`, `skipped`; every answer but `yes` points at a numbered note giving the
 * reason), then the rate-limit headers seen, and one line per unreachable provider. Latency is
 * the last column so its width never moves the others.
 */

const HEADER = ['provider', 'model', 'id', 'family', 'listed', 'tools', 'json', 'caching', 'rate-limit headers', 'latency'];

class Notes {
  readonly lines: string[] = [];
  add(text: string): string {
    this.lines.push(`[${this.lines.length + 1}] ${text}`);
    return `[${this.lines.length}]`;
  }
}

function cell(result: ProbeResult, where: string, notes: Notes, yes = 'yes'): string {
  if (result.status === 'yes') return yes;
  // Skipped only for an id not served (or a provider unreachable), which its own note explains.
  if (result.status === 'skipped') return '-';
  return `${result.status} ${notes.add(`${where}: ${result.reason}`)}`;
}

/** One table row; notes are numbered in column order, left to right. */
function row(provider: string, m: ModelProbe, notes: Notes): string[] {
  const where = (what: string) => `${provider}/${m.key} ${what}`;
  const family = `${m.family ?? '-'}${m.family_flag ? ` ${notes.add(`${where('family')}: ${m.family_flag}`)}` : ''}`;
  const listed = m.listed === null ? '?' : m.listed ? 'yes' : `NO ${notes.add(`${where('id')}: "${m.id}" is not served here (GET /models does not list it); fix models.${m.key}.model, or its provider`)}`;
  const tools = cell(m.tools, where('tools'), notes);
  const json = cell(m.json, where('json'), notes);
  const share = m.cache?.share;
  const caching = cell(m.caching, where('caching'), notes, share === null || share === undefined ? 'yes' : `yes ${Math.round(share * 100)}%`);
  const headers = Object.keys(m.rate_limit_headers).length;
  const latency = m.answer.status === 'yes' && m.latency_ms !== null ? `${m.latency_ms} ms` : cell(m.answer, where('one-token call'), notes);
  return [provider, m.key, m.id, family, listed, tools, json, caching, headers > 0 ? `${headers}` : 'none', latency];
}

/** What the exit code says, in one line. */
function verdict(report: ModelsReport): string {
  const models = report.providers.flatMap((p) => p.models);
  const missing = models.filter((m) => m.listed === false).length;
  if (report.exit === EXIT.ok) return `every configured id is served and answered (${models.length} model(s)); exit 0`;
  if (report.exit === EXIT.providerConfiguration) return `${missing > 0 ? `${missing} configured id(s) not served` : 'a key was refused'}: fix the provider configuration (exit ${EXIT.providerConfiguration})`;
  return `a provider was unreachable or a probe failed: the capabilities marked error are unknown, not absent (exit ${report.exit})`;
}

/** The report as text, for a person. */
export function renderModelsText(report: ModelsReport, shownAs: string): string {
  const notes = new Notes();
  const out = [`harness models: ${shownAs} (each model probed with 5 small calls; nothing is written)`, ''];
  for (const p of report.providers) {
    const list = p.list.status === 'yes' ? (p.list.detail ?? 'listed') : p.reachable ? `failed (${p.list.reason})` : `unreachable (${p.list.reason}); its ${p.unprobed} model(s) were not probed`;
    out.push(`  provider ${p.name}  ${p.base_url}  GET /models: ${list}`);
  }
  const rows = report.providers.flatMap((p) => p.models.map((m) => row(p.name, m, notes)));
  if (rows.length > 0) out.push('', ...textTable([HEADER, ...rows], HEADER.map(() => 'left')));
  if (notes.lines.length > 0) out.push('', ...notes.lines.map((line) => `  ${line}`));
  const withHeaders = report.providers.flatMap((p) => p.models.filter((m) => Object.keys(m.rate_limit_headers).length > 0).map((m) => ({ p, m })));
  if (withHeaders.length > 0) {
    out.push('', '  rate-limit headers (the last reply that carried any):');
    for (const { p, m } of withHeaders) {
      out.push(`    ${p.name}/${m.key}: ${Object.entries(m.rate_limit_headers).sort(([a], [b]) => a.localeCompare(b)).map(([name, value]) => `${name}=${value}`).join(', ')}`);
    }
  }
  out.push('', verdict(report), '');
  return out.join('\n');
}
