import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { RdhError, Role, Tier } from '../../engine/index.js';
import type { ModelPair } from '../manifest/manifest.js';
import type { ProviderConfig } from '../providers/provider-config.js';
import { CodeIdentity, readCodeIdentity } from './code-identity.js';
import { FolderDigest, digestFolder } from './folder-digest.js';
import { JsonData, type JsonValue } from './json-value.js';

/**
 * What a sweep journal pins in its header: everything that, changed, would make a resumed
 * sweep measure something other than what it began measuring. A resume compares the pins
 * it would write now with the stored ones (`comparePins`) and refuses at the first
 * difference, so two matrices never mix into one curve.
 */

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** A pinned folder: where it was (for messages only) and what it held (what is compared). */
export const PinnedFolder = z.strictObject({ path: z.string(), content: FolderDigest });
export type PinnedFolder = z.infer<typeof PinnedFolder>;

/** A model pair as it really runs: the manifest's claim beside what the provider configuration resolved it to. */
export const PinnedPair = z.strictObject({
  provider: z.enum(['sim', 'openai-compatible']),
  /** The id the manifest names (possibly a placeholder). */
  model: z.string(),
  /** The id sent to the endpoint. */
  realModel: z.string(),
  /** Who serves it: `sim`, or the provider configuration's endpoint name. */
  endpoint: z.string(),
  /** The family the manifest declares; null when it declares none. */
  declaredFamily: z.string().nullable(),
  /** The family the provider configuration gives the real model; null when it does not say. */
  realFamily: z.string().nullable(),
  rung: z.int().positive(),
});
export type PinnedPair = z.infer<typeof PinnedPair>;

/**
 * One model of the sweep's roster as the router sees it: which pair it is, the id sent, who
 * serves it, its family, rung and tier, the roles it answers, its prices and its fallbacks.
 * Never a key. A replay rebuilds the engine's roster from these alone.
 */
export const PinnedModel = z.strictObject({
  pair: z.enum(['executor', 'reviewer']),
  /** The id the manifest names (possibly a placeholder). */
  name: z.string().min(1),
  /** The id sent to the endpoint. */
  model: z.string().min(1),
  /** Who serves it: `sim`, or the provider configuration's endpoint name. */
  provider: z.string().min(1),
  /** The real family; null when nobody said (it can then never count as independent). */
  family: z.string().nullable(),
  tier: Tier,
  rung: z.int().positive(),
  /** The roles the router sends to it, and only to it: a sweep never moves a role to the other pair. */
  roles: z.array(Role).min(1),
  /** US dollars per million tokens; null when unknown (never read as free). */
  prices: z.strictObject({ input: z.number().nonnegative(), output: z.number().nonnegative(), cachedInput: z.number().nonnegative() }).nullable(),
  /** Roster names tried when it fails, in order: none in a sweep, where a failing model makes its node wait, then stop. */
  fallbacks: z.array(z.string()),
});
export type PinnedModel = z.infer<typeof PinnedModel>;

/** The token allocations every node of the sweep's trees received. */
export const PinnedBudget = z.strictObject({ leafTokens: z.int().positive(), assemblyTokens: z.int().positive() });
export type PinnedBudget = z.infer<typeof PinnedBudget>;

/** A run's id: what its containers, volumes and grading scratch folders are labelled with. */
export const RunId = z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/, 'is not a run id (lower-case letters, digits and "-", 3 to 64 characters)');

export const JournalPins = z.strictObject({
  /** The manifest FILE as written: its bytes, never the parsed object, so `--max-sessions` (folded into the object) never changes it. */
  manifest: z.strictObject({ path: z.string(), sha256: Sha256, bytes: z.int().nonnegative() }),
  spec: PinnedFolder,
  oracle: PinnedFolder,
  simCorpus: PinnedFolder,
  executor: PinnedPair,
  reviewer: PinnedPair,
  /** The simulated provider's planted parameters, as the sim reports them. OPAQUE here: the sim owns their shape. */
  simulated: JsonData,
  harnessVersion: z.string().min(1),
  code: CodeIdentity,
  /** The whole roster the sweep routes to. Absent in journals from before it was pinned (only the pairs were). */
  roster: z.array(PinnedModel).min(1).optional(),
  /** The per-node allocations. Absent in journals from before they were pinned: those replay with the fixed tree budget of their time. */
  budget: PinnedBudget.optional(),
  /** Absent in journals from before it was pinned: the run folder's name stands in. */
  runId: RunId.optional(),
  /**
   * The manifest's `hypothesis:` block as parsed (plain JSON), pinned before any cell is recorded:
   * what makes a ruling pre-registered. Absent when the manifest declares none (and in journals
   * from before it was pinned). OPAQUE here: the manifest owns its shape.
   */
  hypothesis: JsonData.optional(),
  /**
   * The manifest's `max_children`: the most children one planning node may have. Absent when the
   * manifest sets no bound (and in journals from before the field existed, which had none).
   */
  maxChildren: z.int().min(2).optional(),
});
export type JournalPins = z.infer<typeof JournalPins>;

/** Names of the pins, in the order they are compared (data first, then code). */
export type PinField = keyof JournalPins;

export interface PinSources {
  /** The manifest file's exact bytes (the same bytes the run folder keeps as manifest.yaml). */
  manifestBytes: Uint8Array;
  /** The manifest path as the user wrote it. */
  manifestShownAs: string;
  specDir: string;
  oracleDir: string;
  /** The sim's corpus folder of the task (harness/sim/corpus/<task>/); a missing folder pins as `absent`. */
  simCorpusDir: string;
  /** The checkout the code identity is read from; folder paths in pins are shown relative to it. */
  repoRoot: string;
  /** Every output folder (runs/, the run folder): never part of the dirty check. Default `<repoRoot>/runs`. */
  outputDirs?: readonly string[];
  executor: PinnedPair;
  reviewer: PinnedPair;
  /** Planted simulated parameters (any JSON; null when no pair is simulated). */
  simulated: JsonValue;
  harnessVersion: string;
  roster: PinnedModel[];
  budget: PinnedBudget;
  runId: string;
  /** The manifest's hypothesis block (see `hypothesisPin`); absent when it declares none. */
  hypothesis?: JsonValue;
  /** The manifest's `max_children`; absent when it sets no bound. */
  maxChildren?: number;
}

/** Reads every pin. Touches only the named folders, the manifest bytes given and `git`. */
export async function collectPins(sources: PinSources): Promise<JournalPins> {
  const shown = (dir: string) => {
    const rel = path.relative(sources.repoRoot, dir);
    return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel.split(path.sep).join('/') : dir;
  };
  const folder = async (dir: string): Promise<PinnedFolder> => ({ path: shown(dir), content: await digestFolder(dir) });
  const [spec, oracle, simCorpus, code] = await Promise.all([
    folder(sources.specDir),
    folder(sources.oracleDir),
    folder(sources.simCorpusDir),
    readCodeIdentity(sources.repoRoot, sources.outputDirs ? { outputDirs: sources.outputDirs } : {}),
  ]);
  return JournalPins.parse({
    manifest: { path: sources.manifestShownAs, sha256: createHash('sha256').update(sources.manifestBytes).digest('hex'), bytes: sources.manifestBytes.byteLength },
    spec,
    oracle,
    simCorpus,
    executor: sources.executor,
    reviewer: sources.reviewer,
    simulated: sources.simulated,
    harnessVersion: sources.harnessVersion,
    code,
    roster: sources.roster,
    budget: sources.budget,
    runId: sources.runId,
    ...(sources.hypothesis !== undefined ? { hypothesis: sources.hypothesis } : {}),
    ...(sources.maxChildren !== undefined ? { maxChildren: sources.maxChildren } : {}),
  });
}

/**
 * A manifest pair as it will really run. For `sim` the manifest is the only source; for an
 * OpenAI-compatible pair the provider configuration names the real id and family (a family
 * it leaves out is recorded as null, not guessed). Throws when the configuration does not
 * serve the pair: preflight should have refused that already.
 */
export function pinPair(pair: ModelPair, config: ProviderConfig | undefined): PinnedPair {
  const declaredFamily = pair.family ?? null;
  if (pair.provider === 'sim') return { provider: 'sim', model: pair.model, realModel: pair.model, endpoint: 'sim', declaredFamily, realFamily: declaredFamily, rung: pair.rung };
  const entry = config?.models[pair.model];
  if (!entry) throw new Error(`no provider configuration entry serves model ${pair.model}; check the configuration before pinning`);
  return { provider: pair.provider, model: pair.model, realModel: entry.model ?? pair.model, endpoint: entry.provider, declaredFamily, realFamily: entry.family ?? null, rung: pair.rung };
}

/** The harness version (package.json `version` at the repository root). */
export async function readHarnessVersion(repoRoot: string): Promise<string> {
  const pkg = z.object({ version: z.string().min(1) }).parse(JSON.parse(await readFile(path.join(repoRoot, 'package.json'), 'utf8')));
  return pkg.version;
}

/** A resume against different pins. Exit 2; nothing was written. */
export class JournalMismatchError extends RdhError {
  readonly code = 'journal_mismatch';
  constructor(
    readonly field: PinField,
    message: string,
  ) {
    super(message);
  }
}

export interface ComparePinsOptions {
  /** Accept a different commit, dirty state or harness version, with a caveat that travels to every artifact. Default false. */
  allowCodeChange?: boolean;
}

export type PinComparison = { ok: true; caveats: string[] } | { ok: false; field: PinField; message: string };

const short = (hex: string) => `${hex.slice(0, 8)}…`;
const folderState = (d: FolderDigest) => (d.state === 'absent' ? 'absent' : `digest ${short(d.sha256)}`);
const FOLDERS = [
  ['spec', 'the spec folder'],
  ['oracle', 'the oracle folder'],
  ['simCorpus', 'the sim corpus'],
] as const;
const CODE_FIX = 'record into a new --out, or pass --allow-code-change to continue with a caveat on every artifact';

/** Where two JSON values first differ, as a dotted path with both sides. */
export function firstDifference(a: unknown, b: unknown, at = ''): { path: string; from: unknown; to: unknown } | undefined {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object';
  if (isObject(a) && isObject(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const key of keys) {
      const found = firstDifference(a[key], b[key], at ? `${at}.${key}` : key);
      if (found) return found;
    }
    return undefined;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : { path: at || '(the value)', from: a, to: b };
}

const shownValue = (v: unknown) => (v === undefined ? 'absent' : JSON.stringify(v));

function describeCode(code: CodeIdentity, version: string): string {
  if (code.state === 'unknown') return `harness ${version}, unidentified code (${code.reason})`;
  return `harness ${version}, commit ${short(code.commit)}${code.dirty ? ` + uncommitted changes ${short(code.changes ?? '')}` : ' (clean)'}`;
}

/**
 * Compares the pins a journal began with (`stored`) with the ones a resume would write now,
 * and returns the first difference as a one-line refusal naming the field and the fix.
 * Code (commit, uncommitted changes, harness version) is compared last: with
 * `allowCodeChange` a difference there becomes a caveat instead. Code that cannot be
 * identified on either side is a difference, never assumed unchanged.
 */
export function comparePins(stored: JournalPins, current: JournalPins, options: ComparePinsOptions = {}): PinComparison {
  const since = 'since this journal began';
  // Named before the manifest's digest (which it is part of), so the refusal says what changed.
  const [wasBound, nowBound] = [stored.maxChildren ?? null, current.maxChildren ?? null];
  if (wasBound !== nowBound) {
    const restore = wasBound === null ? 'remove max_children from the manifest' : `restore max_children: ${wasBound} in the manifest`;
    return { ok: false, field: 'maxChildren', message: `the branching bound changed ${since} (max_children ${wasBound ?? 'unset'} → ${nowBound ?? 'unset'}): a tree built under one bound is not the tree of another; record into a new --out, or ${restore}` };
  }
  if (stored.manifest.sha256 !== current.manifest.sha256) {
    return { ok: false, field: 'manifest', message: `the manifest changed ${since} (digest ${short(stored.manifest.sha256)} → ${short(current.manifest.sha256)}): record into a new --out, or restore the manifest` };
  }
  for (const [field, what] of FOLDERS) {
    const [was, now] = [stored[field].content, current[field].content];
    if (folderState(was) !== folderState(now) || firstDifference(was, now)) {
      return { ok: false, field, message: `${what} changed ${since} (${folderState(was)} → ${folderState(now)}): record into a new --out, or restore ${stored[field].path} as it was` };
    }
  }
  for (const field of ['executor', 'reviewer'] as const) {
    const diff = firstDifference(stored[field], current[field]);
    if (diff) return { ok: false, field, message: `the ${field} pair changed ${since} (${diff.path} ${shownValue(diff.from)} → ${shownValue(diff.to)}): record into a new --out, or restore the provider configuration` };
  }
  // Pinned only by later journals: compared when both sides have them.
  for (const [field, what, fix] of [
    ['roster', 'the roster', 'restore the provider configuration'],
    ['budget', 'the token allocations', 'restore budget: in the manifest'],
  ] as const) {
    const diff = stored[field] !== undefined && current[field] !== undefined ? firstDifference(stored[field], current[field]) : undefined;
    if (diff) return { ok: false, field, message: `${what} changed ${since} (${diff.path} ${shownValue(diff.from)} → ${shownValue(diff.to)}): record into a new --out, or ${fix}` };
  }
  const planted = firstDifference(stored.simulated, current.simulated);
  if (planted) {
    return { ok: false, field: 'simulated', message: `the planted simulated parameters changed ${since} (${planted.path} ${shownValue(planted.from)} → ${shownValue(planted.to)}): record into a new --out, or restore them` };
  }
  const was = describeCode(stored.code, stored.harnessVersion);
  const now = describeCode(current.code, current.harnessVersion);
  const unknown = stored.code.state === 'unknown' || current.code.state === 'unknown';
  if (!unknown && was === now && !firstDifference(stored.code, current.code)) return { ok: true, caveats: [] };
  const field: PinField = stored.harnessVersion !== current.harnessVersion ? 'harnessVersion' : 'code';
  if (!options.allowCodeChange) {
    const what = unknown ? `the code cannot be shown to be the code this journal began with (${was} → ${now})` : `the code changed ${since} (${was} → ${now})`;
    return { ok: false, field, message: `${what}: ${CODE_FIX}` };
  }
  return { ok: true, caveats: [`CODE CHANGED: this sweep began on ${was} and was resumed on ${now}; cells recorded before and after the resume ran different code.`] };
}

/** `comparePins`, throwing JournalMismatchError on a difference; returns the caveats to record. */
export function assertPinsMatch(stored: JournalPins, current: JournalPins, options: ComparePinsOptions = {}): string[] {
  const result = comparePins(stored, current, options);
  if (!result.ok) throw new JournalMismatchError(result.field, result.message);
  return result.caveats;
}
