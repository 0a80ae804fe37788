import type { Manifest } from '../manifest/manifest.js';
import { sameFamilyCaveat } from '../manifest/manifest-loader.js';
import { oneLine } from '../record/progress.js';
import type { CodeIdentity } from '../journal/code-identity.js';
import type { SweepEvent } from '../journal/sweep-events.js';
import type { SweepCells } from './journal-cells.js';
import type { Caveat, Report } from './report-schema.js';

/**
 * What a reader must know before reading any number: each caveat goes on the face of every
 * artifact (report.md's first screen, every chart's subtitle, the terminal summary, and the
 * site). Pure: derived from the journal, the manifest and the figures.
 */

const sameCode = (a: CodeIdentity, b: CodeIdentity) => JSON.stringify(a) === JSON.stringify(b);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export interface CaveatInput {
  events: readonly SweepEvent[];
  manifest: Manifest;
  sweep: SweepCells;
  simulatedText: string | null;
  report: Pick<Report, 'counts' | 'survival' | 'independence' | 'cost'>;
}

/** Measured cells whose pair's other arm (same cap and repetition) was not measured, when the design has both arms. */
export function unpairedCells(input: Pick<CaveatInput, 'sweep' | 'manifest'>): string[] {
  if (input.manifest.arms.length < 2) return [];
  const measured = input.sweep.cells.filter((c) => c.status === 'measured');
  const key = (c: { cap: number; repetition: number }) => `${c.cap}/${c.repetition}`;
  const arms = new Map<string, number>();
  for (const c of measured) arms.set(key(c), (arms.get(key(c)) ?? 0) + 1);
  return measured.filter((c) => arms.get(key(c)) === 1).map((c) => c.id);
}

export function caveatsOf(input: CaveatInput): Caveat[] {
  const { events, manifest, sweep, report } = input;
  const caveats: Caveat[] = [];
  const add = (kind: Caveat['kind'], text: string) => caveats.push({ kind, text: oneLine(text) });
  if (input.simulatedText) {
    add('simulated', `SIMULATED: these figures come from the built-in simulated agent population, not from any model; they validate the harness against planted parameters (${input.simulatedText}).`);
  }
  const sameFamily = sameFamilyCaveat(manifest);
  if (sameFamily) add('same_family', sameFamily);
  const header = events[0]?.type === 'header' ? events[0] : undefined;
  const runs = events.filter((e) => e.type === 'run_started');
  if (header && runs.some((r) => !sameCode(r.code, header.pins.code))) {
    add('code_changed', 'CODE CHANGED: an invocation of harness record ran other code than the sweep began with (--allow-code-change), so its cells may not measure the same thing.');
  }
  for (const text of new Set(runs.flatMap((r) => r.caveats))) add('recorded', text);
  const { counts } = report;
  if (sweep.stop?.reason === 'quota') add('quota', `QUOTA STOP: the provider account ran out of quota; the sweep stopped and kept what it had paid for (${oneLine(sweep.stop.detail)}).`);
  if (counts.cells.unmeasured > 0 || sweep.stop?.reason === 'ceiling') {
    const lowered = [...events].reverse().find((e) => e.type === 'ceiling_lowered');
    const which = lowered ? `max_sessions (lowered to ${lowered.maxSessions} from ${lowered.manifestMaxSessions} by --max-sessions)` : `max_sessions (${manifest.max_sessions})`;
    add('ceiling', `CEILING REACHED: ${which} stopped the sweep; ${plural(counts.cells.unmeasured, 'cell')} left unmeasured (${counts.unmeasured.join(', ') || 'none listed'}).`);
  }
  if (counts.cells.interrupted > 0 || (runs.length > 0 && !sweep.stop)) {
    add('interrupted', `INTERRUPTED: ${sweep.stop ? `the sweep stopped (${sweep.stop.reason})` : 'the journal has no stop after its last invocation: the sweep may still be running, or was killed'}; ${plural(counts.cells.interrupted, 'cell')} did not finish.`);
  }
  if (counts.cells.notRecorded > 0) add('incomplete', `STAGED: ${plural(counts.cells.notRecorded, 'cell')} of the manifest's caps ${manifest.depth_caps.filter((c) => !sweep.recordedCaps.includes(c)).join(', ')} not recorded yet.`);
  if (counts.cells.unavailable > 0) add('incomplete', `${plural(counts.cells.unavailable, 'cell')} unavailable, each with its reason in the counts; they are not in any figure.`);
  const audit = report.independence;
  if (audit.share !== null && audit.share < 1) {
    add('independence', `INDEPENDENCE NOT SHOWN: ${audit.gatedMerges - audit.independentMerges} of ${plural(audit.gatedMerges, 'gated merge')} were not judged by a family that contributed nothing; they are listed in the audit.`);
  }
  if (counts.escalations > 0) add('escalations', `${plural(counts.escalations, 'NEEDS_HUMAN escalation')} parked, never resolved: the merges stood, and the gated line rests partly on them.`);
  if (report.cost.actual.unpricedSessions + report.cost.unmeasured.unpricedSessions > 0) {
    add('unpriced', `UNPRICED: ${plural(report.cost.actual.unpricedSessions + report.cost.unmeasured.unpricedSessions, 'session')} had no known price; dollar figures that include them read "unknown", never $0.`);
  }
  const measured = sweep.cells.flatMap((c) => (c.status === 'measured' && c.measurement ? [{ id: c.id, m: c.measurement }] : []));
  const cut = measured.filter(({ m }) => m.cutShort?.length);
  if (cut.length > 0) {
    const nodes = (kind: 'leaf' | 'merge') => cut.reduce((n, { m }) => n + (m.cutShort ?? []).filter((c) => c.kind === kind).length, 0);
    add('cut_short', `CUT SHORT: in ${plural(cut.length, 'cell')} (${cut.map((c) => c.id).join(', ')}), ${plural(nodes('leaf'), 'leaf', 'leaves')} and ${plural(nodes('merge'), 'merge')} were cut short by their token allocation or the length limit; those cells are measured, but their losses may be the budget's, not the depth's (raise budget.leaf_tokens / budget.assembly_tokens).`);
  }
  const flagged = measured.reduce((f, { m }) => ({ unreadable: f.unreadable + (m.flaggedCalls?.unreadableUsage ?? 0), lost: f.lost + (m.flaggedCalls?.unreceivedAttempts ?? 0) }), { unreadable: 0, lost: 0 });
  if (flagged.unreadable + flagged.lost > 0) {
    add('worst_case_charges', `WORST-CASE CHARGES: ${plural(flagged.unreadable, 'call')} reported no readable usage and ${plural(flagged.lost, 'attempt')} may have been answered but never received; each was charged the most it could have cost, so spend figures are upper bounds.`);
  }
  const estimated = measured.reduce((n, { m }) => n + (m.spend.leaf.estimatedCalls ?? 0) + (m.spend.planning.estimatedCalls ?? 0) + (m.spend.merge.estimatedCalls ?? 0), 0);
  if (estimated > 0) add('estimated_usage', `ESTIMATED USAGE: ${plural(estimated, 'call')} reported missing or malformed usage, so their tokens (and spend) are estimates; each cell's spend says how many.`);
  const timedOut = measured.filter(({ m }) => (m.grade.timedOutCases ?? 0) > 0);
  if (timedOut.length > 0) {
    add('timed_out', `TIMED OUT: ${plural(timedOut.reduce((n, { m }) => n + m.grade.timedOutCases!, 0), 'oracle case')} ran past the per-case limit in ${plural(timedOut.length, 'cell')} (${timedOut.map((c) => c.id).join(', ')}) and counted as failures; on a loaded machine a timeout may be the machine's, not the tree's.`);
  }
  if (counts.noClaims.length > 0) add('no_claims', `NO CLAIMS: ${plural(counts.noClaims.length, 'cell')} delivered no claim (${counts.noClaims.join(', ')}): measured, with nothing to count in any survival figure.`);
  if (sweep.stop?.reason === 'unreachable') add('unreachable', `PROVIDER UNREACHABLE: a provider failed for its whole patience and the sweep stopped (${oneLine(sweep.stop.detail)}); the same command re-runs the cells it left unavailable.`);
  const unpaired = unpairedCells(input);
  if (unpaired.length > 0) {
    add('unpaired', `UNPAIRED: ${plural(unpaired.length, 'cell')} measured without the other arm of its pair (${unpaired.join(', ')}): left out of every survival figure, so both arms' curves and their difference rest on the same complete pairs.`);
  }
  const intervals = [...report.survival.byCap.flatMap((r) => [r.gated, r.ungated, r.difference]), ...report.survival.pooled.flatMap((r) => [r.gated, r.ungated, r.difference])];
  if (intervals.some((f) => f?.interval.kind === 't' && !f.interval.calibrated) || intervals.some((f) => f?.interval.kind === 'none')) {
    add('uncalibrated', 'Intervals from fewer than 5 pairs (or with no spread between pairs) are labelled "uncalibrated"; a figure from 1 pair has no interval at all.');
  }
  return caveats;
}
