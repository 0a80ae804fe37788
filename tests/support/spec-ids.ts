import { loadRequirements, specDir } from '../../harness/index.js';

/**
 * The requirement ids of the first task's pinned spec (spec/sqlcsv/requirements.yaml), read
 * from the spec as the harness reads them: tests that sample or report over a real spec's
 * requirements use these, never a count of their own.
 */
export const SPEC_IDS: readonly string[] = Object.freeze((await loadRequirements(specDir('sqlcsv'))).map((r) => r.id));
