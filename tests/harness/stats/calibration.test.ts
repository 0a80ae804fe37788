import { DEFAULT_PAIR_DIFFERENCE_SD } from '../../../harness/index.js';
import { calibrationCases } from './calibration-cases.js';

/**
 * Calibration of the survival intervals, shown rather than assumed (DESIGN.md section 4), at
 * the SIMULATED population's default rates: 1,000 synthetic shared-pairing sweeps of caps 1
 * and 2 drawn from the pure generative model, each interval checked against the closed-form
 * planted truth. The smoke's rates are calibration-smoke.test.ts. The tables printed are the
 * README's figures (section "Calibration").
 */

/** The sim's default population, pinned here so the figures cannot drift with a default. */
const PLANTED = {
  leaf_defect_rate: 0.2,
  seam_defect_rate: 0.15,
  judge_recall: 0.8,
  self_review_recall: 0.3,
  repair_rate: 0.6,
  branching: { 2: 0.5, 3: 0.5 },
  early_leaf_rate: 0.1,
  unresolved_claim_rate: 0.05,
  non_delivery_rate: 0.05,
};

calibrationCases(
  'the default population',
  { params: PLANTED, caps: [1, 2], mergeAttempts: 2, pairs: 10 },
  // A manifest that names no analysis.pair_difference_sd: what the report then assumes.
  { pairDifferenceSd: DEFAULT_PAIR_DIFFERENCE_SD },
  ['cap 1 level 1 difference', 'cap 1 level 1 gated', 'cap 1 level 1 ungated', 'cap 2 level 2 difference', 'cap 2 level 2 gated', 'cap 2 level 2 ungated'],
);
