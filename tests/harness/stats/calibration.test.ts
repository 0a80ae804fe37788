import { DEFAULT_PAIR_DIFFERENCE_SD } from '../../../harness/index.js';
import { DEFAULT_POPULATION as PLANTED } from './calibration-support.js';
import { calibrationCases } from './calibration-cases.js';

/**
 * Calibration of the survival intervals, shown rather than assumed (DESIGN.md section 4), at
 * the SIMULATED population's default rates: 1,000 synthetic shared-pairing sweeps of caps 1
 * and 2 drawn from the pure generative model, each interval checked against the closed-form
 * planted truth. The smoke's rates are calibration-smoke.test.ts. The tables printed are the
 * figures in docs/reports-and-statistics.md ("Calibration of the intervals").
 */


calibrationCases(
  'the default population',
  { params: PLANTED, caps: [1, 2], mergeAttempts: 2, pairs: 10 },
  // A manifest that names no analysis.pair_difference_sd: what the report then assumes.
  { pairDifferenceSd: DEFAULT_PAIR_DIFFERENCE_SD },
  ['cap 1 level 1 difference', 'cap 1 level 1 gated', 'cap 1 level 1 ungated', 'cap 2 level 2 difference', 'cap 2 level 2 gated', 'cap 2 level 2 ungated'],
);
