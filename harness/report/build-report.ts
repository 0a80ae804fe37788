import { UsageError } from '../exit-codes.js';
import { plain } from '../internal/figures.js';
import { ARMS, pairDifferenceSdOf, repetitionsAt, type Manifest } from '../manifest/manifest.js';
import { SimParams, plantedText, withBound, type DefectModel } from './planted-truth.js';
import { isSimulatedRun } from '../providers/sweep-roster.js';
import { cellCounts, survivalTally, totalSpend, type CellMeasurement } from '../journal/cell-measurement.js';
import type { SweepEvent, SweepEventOf } from '../journal/sweep-events.js';
import { caveatsOf, unpairedCells } from './caveats.js';
import { CHARTS } from './chart-list.js';
import { costSection } from './cost-panel.js';
import { cacheShareByRole } from '../journal/cache-share.js';
import type { Paid } from '../journal/paid.js';
import type { CacheShare } from '../journal/cache-share-schema.js';
import { independenceAudit } from './independence-audit.js';
import { sweepCells, type CellState } from './journal-cells.js';
import { plantedTruth, type PlantedTruth } from './planted-truth.js';
import { REPORT_VERSION, Report, type CellRow, type DepthBin } from './report-schema.js';
import { survivalSection } from './survival-figures.js';
import { rulingSection } from './ruling.js';
import { withLooks } from './look-ruling.js';
import { mergeDecaySection } from './merge-decay.js';
import { beyondClaimsSection } from './beyond-claims.js';
import { claimRows } from './claim-rows.js';
import { cellId } from '../journal/run-folder.js';

/**
 * The report of one sweep, as data: a pure function of its journal, its manifest and (for a
 * SIMULATED sweep) the sim's defect model. The same input gives the same report, byte for
 * byte: nothing here reads a clock, a file or the environment.
 */

export interface ReportInput {
  /** The run folder's name, e.g. `smoke-20260102T030405Z`; never a path. */
  runName: string;
  /** The journal's events, validated, header first. */
  events: readonly SweepEvent[];
  /** The manifest the run folder keeps (the one its journal pins). */
  manifest: Manifest;
  /** The sim's defect model, for the planted truth of a simulated sweep. Default none: no truth is shown. */
  defects?: DefectModel;
  /** The pinned spec's requirement ids, in order: what the planted truth sums over. Default none: no truth is shown. */
  requirements?: readonly string[];
  /** Why there is no defect model for a simulated sweep, as the report says it. Default: "the defect model was not given". */
  noTruthBecause?: string;
  /** Confidence of every interval. Default 0.95. */
  confidence?: number;
  /** The cached share of each session's first call, per role, read from the transcripts (cache-share.ts). Default: not read (shown as such). */
  firstCallCache?: CacheShare[];
  /** The licence notice of each text the pinned task's brief carries beside SPEC.md (brief-sources.ts). Default none: the brief is SPEC.md alone. */
  licenceNotices?: readonly string[];
  /** What the run paid, read from its transcripts (journal/paid.ts). Default: not read (the report omits it). */
  paid?: Paid;
}


/** A SIMULATED run's planted parameters as its journal pins them: null for a real run, `unreadable` when they do not parse (never the manifest's instead: those may not be what the sim drew from). */
function planted(header: SweepEventOf<'header'>): SimParams | 'unreadable' | null {
  // The one definition of a SIMULATED run: its pinned roster (or, in older journals, its pairs).
  if (!isSimulatedRun(header.pins)) return null;
  const pinned = SimParams.safeParse(header.pins.simulated);
  return pinned.success ? pinned.data : 'unreadable';
}

/** The measured cells of complete pairs (every designed arm measured), and the ones left out. */
export function completePairs(sweep: ReturnType<typeof sweepCells>, manifest: Manifest): { complete: CellMeasurement[]; unpaired: string[] } {
  const unpaired = unpairedCells({ sweep, manifest });
  const left = new Set(unpaired);
  return { complete: sweep.cells.flatMap((c) => (c.measurement && !left.has(c.id) ? [c.measurement] : [])), unpaired };
}

function cellRow(state: CellState): CellRow {
  const m = state.measurement;
  const base = { id: state.id, cap: state.cap, arm: state.arm, repetition: state.repetition, status: state.status, reason: state.reason };
  if (!m) return { ...base, result: null, spend: state.journalSpend };
  const tally = survivalTally(m);
  const counts = cellCounts(m);
  const claimed = tally.levels.reduce((n, t) => n + t.claimed, 0);
  const surviving = tally.levels.reduce((n, t) => n + t.surviving, 0);
  return {
    ...base,
    result: {
      claimed,
      surviving,
      survival: claimed > 0 ? surviving / claimed : null,
      levels: tally.levels,
      deepestLevel: counts.deepestLevel,
      specPassing: m.grade.passing.length,
      specTotal: m.grade.total,
      specFraction: counts.specFraction,
      testsCarried: m.grade.testsCarried,
      leaves: counts.leaves,
      leavesNotDelivered: counts.leavesNotDelivered,
      claimsDropped: counts.claimsDropped,
      escalations: counts.escalations,
    },
    spend: totalSpend([m.spend.leaf, m.spend.planning, m.spend.merge]),
  };
}

function depthBins(rows: readonly CellRow[], truth: PlantedTruth | null): DepthBin[] {
  const bins: DepthBin[] = [];
  const caps = [...new Set(rows.filter((r) => r.result).map((r) => r.cap))].sort((a, b) => a - b);
  for (const cap of caps) {
    for (const arm of ARMS) {
      const cells = rows.filter((r) => r.cap === cap && r.arm === arm && r.result);
      if (cells.length === 0) continue;
      const deepest = Math.max(cap, ...cells.map((r) => r.result!.deepestLevel));
      for (let level = 0; level <= deepest; level++) {
        const count = cells.filter((r) => r.result!.deepestLevel === level).length;
        const expected = truth ? truth.depthProbability(cap, level) * cells.length : null;
        if (count > 0 || (expected !== null && expected >= 0.005)) bins.push({ cap, arm, deepestLevel: level, cells: count, expected });
      }
    }
  }
  return bins;
}

function pairingOf(measured: readonly CellMeasurement[]): CellMeasurement['pairing'] {
  const pairings = [...new Set(measured.map((m) => m.pairing))];
  if (pairings.length > 1) throw new UsageError('the measured cells disagree on pairing (shared and independent); one sweep has one pairing, so this journal mixes two sweeps: record into a new --out');
  return pairings[0]!;
}

export function buildReport(input: ReportInput): Report {
  const { events, manifest } = input;
  const header = events[0];
  if (header?.type !== 'header') throw new UsageError(`${input.runName}: the journal has no header, so nothing was recorded; run harness record first`);
  const sweep = sweepCells(events, manifest);
  const rows = sweep.cells.map(cellRow);
  const measured = sweep.cells.flatMap((c) => (c.measurement ? [c.measurement] : []));
  const byStatus = (status: CellRow['status']) => sweep.cells.filter((c) => c.status === status);
  if (measured.length === 0) {
    const tell = (['unavailable', 'unmeasured', 'interrupted', 'not_recorded'] as const).map((s) => `${byStatus(s).length} ${s.replace('_', ' ')}`).join(', ');
    throw new UsageError(`${input.runName}: no cell was measured (${tell}); a sweep where nothing was measured is not published as a curve of zeros`);
  }
  const pairing = pairingOf(measured);
  const pinned = planted(header);
  const params = pinned === 'unreadable' ? null : pinned;
  const caps = [...new Set(measured.map((m) => m.cap))].sort((a, b) => a - b);
  const truth = params && input.defects && input.requirements ? plantedTruth(withBound(params, manifest.max_children), { caps, mergeAttempts: manifest.merge_attempts, defects: input.defects, requirements: input.requirements }) : null;
  const noTruth = pinned === 'unreadable' ? "the journal's pinned planted parameters do not parse" : !input.defects ? (input.noTruthBecause ?? 'the defect model was not given') : (input.noTruthBecause ?? "the pinned spec's requirements were not given");
  const { complete, unpaired } = completePairs(sweep, manifest);
  const survival = survivalSection(complete.map(survivalTally), pairing, input.confidence ?? 0.95, truth, pairDifferenceSdOf(manifest).sd);
  const counts: Report['counts'] = {
    cells: {
      design: sweep.cells.length,
      measured: measured.length,
      unavailable: byStatus('unavailable').length,
      unmeasured: byStatus('unmeasured').length,
      interrupted: byStatus('interrupted').length,
      notRecorded: byStatus('not_recorded').length,
    },
    leaves: rows.reduce((n, r) => n + (r.result?.leaves ?? 0), 0),
    leavesNotDelivered: rows.reduce((n, r) => n + (r.result?.leavesNotDelivered ?? 0), 0),
    claimsDropped: rows.reduce((n, r) => n + (r.result?.claimsDropped ?? 0), 0),
    escalations: rows.reduce((n, r) => n + (r.result?.escalations ?? 0), 0),
    noClaims: rows.filter((r) => r.result?.claimed === 0).map((r) => r.id),
    unpaired,
    unavailable: byStatus('unavailable').map((c) => ({ id: c.id, ...c.unavailable! })),
    unmeasured: byStatus('unmeasured').map((c) => c.id),
    interrupted: byStatus('interrupted').map((c) => c.id),
  };
  const independence = independenceAudit(measured);
  const cost = { ...costSection(measured, sweep.unmeasuredSpend, manifest), ...(input.paid ? { paid: input.paid } : {}), cache: { byRole: cacheShareByRole(events), firstCall: input.firstCallCache ?? null } };
  const simulatedText = params ? plantedText(params) : pinned === 'unreadable' ? "planted parameters unreadable: the journal's pin does not parse" : null;
  const pair = (p: SweepEventOf<'header'>['pins']['executor']) => ({ provider: p.provider, model: p.model, realModel: p.realModel, family: p.realFamily ?? p.declaredFamily, rung: p.rung });
  const code = header.pins.code;
  const report: Report = {
    version: REPORT_VERSION,
    sweep: {
      name: header.manifestName,
      run: input.runName,
      asOf: events.at(-1)!.at,
      journalEvents: events.length,
      manifestSha256: header.pins.manifest.sha256,
      harnessVersion: header.pins.harnessVersion,
      code: code.state === 'git' ? { commit: code.commit, dirty: code.dirty } : { commit: null, dirty: null },
    },
    simulated: pinned && { planted: params, text: simulatedText!, truth: truth ? truth.description : `not computed: ${noTruth}` },
    design: {
      spec: manifest.spec,
      caps: [...manifest.depth_caps],
      arms: [...manifest.arms],
      repetitions: manifest.depth_caps.map((cap) => ({ cap, repetitions: repetitionsAt(manifest, cap) })),
      recordedCaps: sweep.recordedCaps,
      mergeAttempts: manifest.merge_attempts,
      pairing,
      independence: manifest.independence,
      executor: pair(header.pins.executor),
      reviewer: pair(header.pins.reviewer),
      maxSessions: manifest.max_sessions,
      projectedBranching: manifest.projected_branching,
    },
    stop: sweep.stop,
    caveats: [],
    counts,
    cells: rows,
    claims: claimRows(measured, new Set(complete.map(cellId))),
    survival,
    depth: depthBins(rows, truth),
    cost,
    independence,
    charts: CHARTS.map((c) => ({ name: c.name, title: c.title, spec: `charts/${c.name}.vl.json`, svg: `charts/${c.name}.svg` })),
  };
  // The pre-registered ruling: from the comparisons' own intervals, never from power.
  const ruling = rulingSection({ cells: complete.map(survivalTally), pairing, pairDifferenceSd: pairDifferenceSdOf(manifest).sd, hypothesis: manifest.hypothesis, pinned: header.pins.hypothesis });
  if (ruling) report.ruling = withLooks(ruling, { events, manifest, cells: complete.length });
  const decay = mergeDecaySection(complete, truth);
  if (decay) report.mergeDecay = decay;
  const beyond = beyondClaimsSection(complete.map((m) => ({ id: cellId(m), m })), truth !== null);
  if (beyond) report.beyondClaims = beyond;
  if (input.licenceNotices?.length) report.licenceNotices = [...input.licenceNotices];
  report.caveats = caveatsOf({ events, manifest, sweep, simulatedText, report });
  // Parsing on the way out is the guarantee: no NaN, no infinity, no field the schema does not name.
  return Report.parse(report);
}
