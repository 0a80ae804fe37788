import { count, tokens, usd } from '../internal/figures.js';
import { ARMS } from '../manifest/manifest.js';
import { cellText, dollars, estimateText, markdownTable, percent, share, spendText, truthText } from './report-format.js';
import type { Report } from './report-schema.js';
import { rulingMarkdown } from './ruling.js';
import { looksMarkdown } from './look-ruling.js';

/**
 * report.md: the report for people. Its first screen says in words what was measured, on what,
 * and with which caveats, then the headline; the sections after it show every figure with its
 * interval and, for a SIMULATED sweep, the planted truth beside it. A pure function of
 * report.json.
 */

const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;
const pairText = (p: Report['design']['executor']) => `${cellText(p.realModel)} (${p.provider}${p.realModel !== p.model ? `, as ${cellText(p.model)}` : ''}; family ${cellText(p.family ?? 'undeclared')}; rung ${p.rung})`;

function firstScreen(r: Report): string[] {
  const d = r.design;
  const reps = d.repetitions.map((x) => `${x.repetitions} at cap ${x.cap}`).join(', ');
  const lines = [`# ${cellText(r.sweep.name)}: does work survive as the tree gets deeper?${r.simulated ? ' (SIMULATED)' : ''}`, ''];
  if (r.simulated) {
    lines.push(
      `> **SIMULATED.** Every figure below comes from the harness's built-in simulated agent population, not from any model. It validates the harness: the planted parameters are ${r.simulated.text}. The planted truth (${r.simulated.truth}) is printed beside each measured figure.`,
      '',
    );
  }
  lines.push(
    '**What was measured.** For every leaf of a recursively split tree that delivered (it changed what it declared and its own tests pass), the requirements it claimed are followed to the graded root tree. *Survival* is the share of those claims whose requirement still passes there, binned on the level the leaf actually sat at (root = 0), never on the cap. Two arms: **gated**, where an independent reviewer from a family that contributed nothing judges every merge and a rejection feeds a repair; and **ungated**, where the merging agent reviews itself, its verdict unused, with the same number of attempts. The headline is the paired difference gated − ungated.',
    '',
    `**On what.** Spec \`${cellText(d.spec)}\`; executor ${pairText(d.executor)}; reviewer ${pairText(d.reviewer)}; independence ${d.independence}. Depth caps ${d.caps.join(', ')}, repetitions ${reps}, ${plural(d.mergeAttempts, 'merge attempt')} per assembling node in both arms, pairing ${d.pairing}${d.pairing === 'shared' ? ' (both arms of a (cap, repetition) grade one planned tree and its leaves, diverging at the first merge)' : ''}. ${count(r.counts.cells.measured)} of ${plural(r.counts.cells.design, 'cell')} measured. Journal of run \`${cellText(r.sweep.run)}\` as of ${r.sweep.asOf}, ${plural(r.sweep.journalEvents, 'event')}, code ${r.sweep.code.commit ? `${r.sweep.code.commit.slice(0, 12)}${r.sweep.code.dirty ? ' (with uncommitted changes)' : ''}` : 'unknown'}.`,
    '',
    '**Caveats.**',
    '',
    ...(r.caveats.length ? r.caveats.map((c) => `- ${cellText(c.text)}`) : ['- None.']),
    '',
  );
  return lines;
}

function headline(r: Report): string[] {
  const truth = Boolean(r.simulated);
  const header = ['level', 'gated', 'ungated', 'gated − ungated', ...(truth ? ['planted gated / ungated / difference'] : [])];
  const rows = r.survival.pooled.map((row) => {
    const pairs = (f: { strata: { pairs: number }[] }) => f.strata.reduce((n, s) => n + s.pairs, 0);
    return [
      String(row.level),
      row.gated ? estimateText(row.gated, pairs(row.gated)) : '–',
      row.ungated ? estimateText(row.ungated, pairs(row.ungated)) : '–',
      row.difference ? `**${estimateText(row.difference, pairs(row.difference), true)}**` : '–',
      ...(truth ? [`${truthText(row.gated?.truth ?? null)} / ${truthText(row.ungated?.truth ?? null)} / ${truthText(row.difference?.truth ?? null, true)}`] : []),
    ];
  });
  return [
    `## Headline: survival by achieved level, pooled over caps`,
    '',
    `${percent(r.survival.confidence)} intervals; a level's caps are pooled with weights proportional to their pairs (Satterthwaite degrees of freedom). The unit is the pair or the cell, never the leaf.`,
    '',
    ...markdownTable(header, rows, ['r']),
    '',
    '![Survival by achieved level](charts/survival-by-level.svg)',
    '',
  ];
}

function byCap(r: Report): string[] {
  const truth = Boolean(r.simulated);
  const header = ['cap', 'level', 'gated', 'ungated', 'gated − ungated', ...(truth ? ['planted g / u / diff'] : [])];
  const rows = r.survival.byCap.map((row) => [
    String(row.cap),
    String(row.level),
    row.gated ? `${estimateText(row.gated, row.gated.pairs)}, ${row.gated.surviving}/${row.gated.claimed} claims` : '–',
    row.ungated ? `${estimateText(row.ungated, row.ungated.pairs)}, ${row.ungated.surviving}/${row.ungated.claimed} claims` : '–',
    row.difference ? `${estimateText(row.difference, row.difference.pairs, true)}${row.difference.unpairedCells ? `, ${row.difference.unpairedCells} unpaired cells left out` : ''}` : '–',
    ...(truth ? [`${truthText(row.gated?.truth ?? null)} / ${truthText(row.ungated?.truth ?? null)} / ${truthText(row.difference?.truth ?? null, true)}`] : []),
  ]);
  const curve = r.survival.capCurve.map((row) => [
    String(row.cap),
    row.gated ? estimateText(row.gated, row.gated.pairs) : '–',
    row.ungated ? estimateText(row.ungated, row.ungated.pairs) : '–',
    row.difference ? estimateText(row.difference, row.difference.pairs, true) : '–',
    ...(truth ? [`${truthText(row.gated?.truth ?? null)} / ${truthText(row.ungated?.truth ?? null)} / ${truthText(row.difference?.truth ?? null, true)}`] : []),
  ]);
  return [
    '## Survival by cap and achieved level',
    '',
    'Within a cap: Σ surviving / Σ claimed over cells, the cluster-linearized standard error and t(n − 1). No interval from 1 pair; below 5 pairs the interval is labelled uncalibrated.',
    '',
    ...markdownTable(header, rows, ['r', 'r']),
    '',
    '![Paired difference](charts/paired-difference.svg)',
    '',
    '## The cap curve',
    '',
    'Every level of a cell pooled, per cap: what a cap allowed, beside the primary curve of what trees used.',
    '',
    ...markdownTable(['cap', 'gated', 'ungated', 'gated − ungated', ...(truth ? ['planted g / u / diff'] : [])], curve, ['r']),
    '',
    '![Cap curve](charts/cap-curve.svg)',
    '',
  ];
}

function depth(r: Report): string[] {
  const rows = r.depth.map((b) => [String(b.cap), b.arm, String(b.deepestLevel), String(b.cells), b.expected === null ? '–' : b.expected.toFixed(2)]);
  return ['## Achieved depth', '', 'Cells by the level of their deepest leaf (root = 0), per arm.', '', ...markdownTable(['cap', 'arm', 'deepest level', 'cells', 'expected (planted)'], rows, ['r', 'l', 'r', 'r', 'r']), '', '![Achieved depth](charts/achieved-depth.svg)', ''];
}

/** Killed claims listed in report.md; report.json lists every one. */
const KILLED_SHOWN = 60;

function mergeDecay(r: Report): string[] {
  const d = r.mergeDecay;
  if (!d) return [];
  const fig = (f: NonNullable<typeof d.rows[number]['gated']> | null) => (f === null ? '–' : f.survival === null ? 'no claims' : `${share(f.survival)} (${f.passing}/${f.claims})`);
  const truth = (f: { truth: number | null } | null) => truthText(f?.truth ?? null);
  const gone = (f: { notGradable: number } | null) => String(f?.notGradable ?? 0);
  const rows = d.rows.map((row) => [String(row.cap), String(row.mergeLevel), fig(row.gated), truth(row.gated), fig(row.ungated), truth(row.ungated), `${gone(row.gated)} / ${gone(row.ungated)}`]);
  const killed = d.killed.slice(0, KILLED_SHOWN).map((k) => [k.cellId, k.leaf, k.requirement, k.killedAt, k.lastPassed ?? 'none']);
  const byArm = (list: ReadonlyArray<{ arm: string }>, arm: string) => list.filter((x) => x.arm === arm).length;
  return [
    '## Decay merge by merge',
    '',
    `Every merged subtree of ${plural(d.cells, 'cell')} was graded as the root is (grade_merges), counting for each node only the requirements claimed under it. Survival after merge level k pools the graded nodes at depth k (k = 0 is the root's merge); the root grade above stays the primary endpoint. A subtree whose tree lacks the deliverable's entry points is not gradable there and is counted apart, never as a death.`,
    '',
    ...markdownTable(['cap', 'merge level', 'gated', 'gated (planted)', 'ungated', 'ungated (planted)', 'not gradable (gated / ungated)'], rows, ['r', 'r', 'r', 'r', 'r', 'r', 'r']),
    '',
    `Claims that did not survive to the root: ${byArm(d.killed, 'gated')} gated, ${byArm(d.killed, 'ungated')} ungated, each named with the merge that killed it (the first graded merge it failed after it last passed). Revived (failed at one merge, passed at a later one): ${byArm(d.revived, 'gated')} gated, ${byArm(d.revived, 'ungated')} ungated; every one is listed in report.json.`,
    '',
    ...(killed.length ? markdownTable(['cell', 'leaf', 'requirement', 'killed at', 'last passed at'], killed.map((k) => k.map(cellText))) : []),
    ...(d.killed.length > KILLED_SHOWN ? ['', `… and ${d.killed.length - KILLED_SHOWN} more in report.json.`] : []),
    '',
  ];
}

/** Leaves listed in report.md; report.json lists every one. */
const BEYOND_SHOWN = 20;

function beyondClaims(r: Report): string[] {
  const b = r.beyondClaims;
  if (!b) return [];
  const ratio = (n: number | null) => (n === null ? 'none graded' : share(n));
  const rows = b.rows.map((row) => [String(row.cap), String(row.leaves), String(row.graded), `${row.beyond} (${ratio(row.share)})`, truthText(row.truth), row.meanPerLeaf === null ? '–' : `${row.meanPerLeaf.toFixed(1)} of ${b.specTotal}`]);
  const listed = b.leaves.slice(0, BEYOND_SHOWN).map((l) => [l.cellId, l.leaf, l.claimed.join(' ') || 'none', `${l.beyond.length}: ${l.beyond.join(' ')}`]);
  return [
    '## Work beyond the claims',
    '',
    "Every leaf's own tree was graded by the oracle too (grade_leaves). A leaf that passes requirements it did not claim (nor a prerequisite handed it) built more than its share: a model writing the whole deliverable at every leaf flattens depth, since what survives then owes little to how the work was divided. Leaves whose tree lacks the deliverable's entry points are not graded. Under shared pairing both arms hold the same leaves, counted once.",
    '',
    ...markdownTable(['cap', 'leaves', 'graded', 'beyond their claims (share)', 'share (planted)', 'mean beyond a leaf'], rows, ['r', 'r', 'r', 'r', 'r', 'r']),
    '',
    ...(r.simulated && b.rows.some((row) => row.truth !== null) ? ['Planted: every SIMULATED leaf writes the whole program, with only its own claims\' defects, so it passes every requirement those defects do not break.', ''] : []),
    ...(listed.length ? markdownTable(['cell', 'leaf', 'claimed', 'passing beyond its claims'], listed.map((k) => k.map(cellText))) : []),
    ...(b.leaves.length > BEYOND_SHOWN ? ['', `… and ${b.leaves.length - BEYOND_SHOWN} more in report.json.`] : []),
    '',
  ];
}

function cells(r: Report): string[] {
  const rows = r.cells.map((c) => {
    const x = c.result;
    if (!x) return [c.id, c.status.replace('_', ' '), cellText(c.reason ?? ''), '', '', '', '', '', spendText(c.spend)];
    return [
      c.id,
      'measured',
      x.survival === null ? 'no claims' : `${share(x.survival)} (${x.surviving}/${x.claimed})`,
      `${x.specPassing}/${x.specTotal}`,
      String(x.testsCarried),
      String(x.deepestLevel),
      `${x.leaves} (${x.leavesNotDelivered} not delivered)`,
      `${x.claimsDropped} dropped, ${plural(x.escalations, 'escalation')}`,
      spendText(c.spend),
    ];
  });
  return [
    '## Every cell',
    '',
    'One row per cell of the design. Cell figures carry no interval: a cell is one cluster.',
    '',
    ...markdownTable(['cell', 'status', 'survival', 'spec', 'tests carried', 'deepest level', 'leaves', 'claims', 'spend'], rows),
    '',
    '![Every cell](charts/cells.svg)',
    '',
  ];
}

/** What the declared column is: the scenario at projected_branching, or the bound at max_children. */
function declaredText(r: Report): string {
  const bound = r.cost.caps.find((c) => c.declared.bound);
  return bound ? `the plan's bound for the same cells, every tree full at max_children = ${bound.declared.branching}` : `the manifest's scenario for the same cells, every tree full at b = ${r.design.projectedBranching}`;
}

function cost(r: Report): string[] {
  const rows = r.cost.caps.map((c) => [
    String(c.cap),
    `${c.measuredCells} (${plural(c.pairs, 'pair')})`,
    count(c.actual.sessions),
    c.perCell ? count(c.perCell.sessions) : '–',
    `${tokens(c.actual.tokens.input)} / ${tokens(c.actual.tokens.cached)} / ${tokens(c.actual.tokens.output)}`,
    dollars(c.actual.costUsd),
    `${count(c.declared.sessions)}${c.actualOverDeclared === null ? '' : ` (actual ${percent(c.actualOverDeclared)})`}`,
    c.forecast ? `${count(c.forecast.figures.sessions)}${c.forecast.actualOverForecast === null ? '' : ` (actual ${percent(c.forecast.actualOverForecast)})`}, from ${c.forecast.fromCaps.length === 1 ? 'cap' : 'caps'} ${c.forecast.fromCaps.join(', ')}` : '– (no cap below)',
    c.unmeasured.sessions > 0 ? spendText(c.unmeasured) : '–',
  ]);
  return [
    '## Cost',
    '',
    `Measured cells (under shared pairing a pair's planning and leaves once). Declared: ${declaredText(r)}, counted as \`harness plan\` counts them (a shared pair's planning and leaves once too). Forecast: what \`harness plan --from\` learns from the caps recorded below (measured branching and per-session spend).`,
    '',
    ...markdownTable(['cap', 'cells', 'sessions', 'per cell', 'tokens in / cached / out', 'dollars', 'declared', 'forecast', 'spent without a measurement'], rows, ['r', 'r', 'r', 'r']),
    '',
    `Per cell: the cap's sessions over its measured cells${r.design.pairing === 'shared' ? ', so a pair\'s shared planning and leaves are split between its arms' : ''}.`,
    '',
    `All measured cells: ${spendText(r.cost.actual)}. Cells without a measurement: ${spendText(r.cost.unmeasured)}.`,
    '',
    ...(r.cost.paid ? [paidText(r.cost.paid), ''] : []),
    // The chart draws the table above it (the site links its figures to that table's rows), so the cache's table comes after it.
    '![Cost](charts/cost.svg)',
    '',
    ...cacheLines(r),
  ];
}

/** The prompt cache's share per role: over every call, and over each session's first call (what the request layout decides). */
function cacheLines(r: Report): string[] {
  const cache = r.cost.cache;
  if (!cache || cache.byRole.length === 0) return [];
  const share = (s: { share: number | null } | undefined) => (s?.share === null || s === undefined ? '–' : percent(s.share));
  const rows = cache.byRole.map((row) => {
    const first = cache.firstCall?.find((f) => f.role === row.role);
    return [row.role, count(row.sessions), tokens(row.input), tokens(row.cached), share(row), first ? `${share(first)} of ${tokens(first.input)}` : '–'];
  });
  return [
    "Served from the provider's prompt cache, per role: over every call, and over each session's first call (a later call in a tool loop repeats its own history; only a first call is cached by what it shares with other sessions).",
    '',
    ...markdownTable(['role', 'sessions', 'tokens in', 'cached', 'cached share', 'first calls: cached share'], rows, ['l', 'r', 'r', 'r', 'r', 'r']),
    ...(cache.firstCall === null ? ['', 'First calls: the transcripts were not read.'] : []),
    '',
  ];
}

function audit(r: Report): string[] {
  const a = r.independence;
  const judges = (rows: Report['independence']['judges']) => rows.map((j) => [cellText(j.reviewer.model), cellText(j.reviewer.family ?? 'undeclared'), cellText(j.contributors), j.relation, String(j.reviews)]);
  return [
    '## Independence audit',
    '',
    a.share === null ? 'No gated merge was measured.' : `${count(a.independentMerges)} of ${plural(a.gatedMerges, 'gated merge')} (${percent(a.share)}) were judged, at every attempt, by a family that contributed nothing to the work. It must be 100%.`,
    '',
    ...markdownTable(['judge', 'family', 'families that did the work', 'relation', 'reviews'], judges(a.judges)),
    '',
    ...(a.exceptions.length ? ['Gated merges not judged independently:', '', ...a.exceptions.map((e) => `- ${e.cellId} at \`${cellText(e.nodePath)}\`: ${cellText(e.reason)}`), ''] : []),
    `Ungated arm: ${plural(a.selfReviews.reviews, 'self-review')} at ${plural(a.selfReviews.merges, 'merge')}, verdicts unused by design.`,
    '',
    ...markdownTable(['self-reviewer', 'family', 'families that did the work', 'relation', 'reviews'], judges(a.selfReviews.reviewers)),
    '',
  ];
}

function counts(r: Report): string[] {
  const c = r.counts;
  return [
    '## Counts that change what a number means',
    '',
    `- Cells: ${c.cells.measured} measured, ${c.cells.unavailable} unavailable, ${c.cells.unmeasured} unmeasured by the ceiling, ${c.cells.interrupted} interrupted, ${c.cells.notRecorded} not recorded, of ${c.cells.design} in the design.`,
    `- Leaves: ${count(c.leaves)}, of which ${count(c.leavesNotDelivered)} did not deliver (their claims leave the denominator).`,
    `- Claims dropped because their text named no requirement: ${count(c.claimsDropped)}.`,
    `- NEEDS_HUMAN escalations parked (never resolved; the merge stood): ${count(c.escalations)}.`,
    ...(c.noClaims.length ? [`- Measured with no delivered claim (nothing of theirs in any survival figure): ${c.noClaims.join(', ')}.`] : []),
    ...(c.unpaired.length ? [`- Measured without the other arm of their pair, left out of every survival figure: ${c.unpaired.join(', ')}.`] : []),
    ...c.unavailable.map((u) => `- Unavailable ${u.id}: ${u.reason}: ${cellText(u.detail)}`),
    ...(c.unmeasured.length ? [`- Left unmeasured by the session ceiling: ${c.unmeasured.join(', ')}.`] : []),
    ...(c.interrupted.length ? [`- Interrupted: ${c.interrupted.join(', ')}.`] : []),
    ...(r.stop ? [`- The last invocation stopped: ${r.stop.reason} (${cellText(r.stop.detail)}).`] : []),
    '',
  ];
}

export function renderMarkdown(r: Report): string {
  const arms = ARMS.filter((a) => r.design.arms.includes(a)).join(' and ');
  return `${[
    ...firstScreen(r),
    ...headline(r),
    ...rulingMarkdown(r.ruling),
    ...looksMarkdown(r.ruling),
    ...byCap(r),
    ...depth(r),
    ...mergeDecay(r),
    ...beyondClaims(r),
    ...cells(r),
    ...cost(r),
    ...audit(r),
    ...counts(r),
    '## Files',
    '',
    `report.json (version ${r.version}) holds every figure above; each chart is \`charts/NAME.svg\` beside its vega-lite spec \`charts/NAME.vl.json\`. Arms recorded: ${arms}.`,
    '',
  ].join('\n')}`;
}

/** What the run paid, the figure harness record shows: every live call of every invocation, once. */
function paidText(paid: NonNullable<Report['cost']['paid']>): string {
  const unpriced = paid.unpricedCalls > 0 ? ` (${count(paid.unpricedCalls)} of them with no known price, not in the figure: the total is unknown)` : '';
  return `Paid: ${usd(paid.usd)} for ${count(paid.calls)} live calls across every invocation${unpriced}; a call a resume answered from its transcript is not paid again, so it is not counted again (sessions' spend above counts it where it was used).`;
}
