import { describe, expect, it } from 'vitest';
import { resolveClaim } from '../../../harness/testing.js';

const KNOWN = new Set(['R01', 'R07', 'R42']);

describe('a claim resolves to the one requirement it names', () => {
  it('resolves a criterion line to its id, and drops a claim naming none, several, or an unknown one', () => {
    expect(resolveClaim('R07 Aggregates: COUNT(*) counts rows', KNOWN)).toBe('R07');
    expect(resolveClaim('the behaviour this piece owns works (SIMULATED vague claim)', KNOWN)).toBeNull();
    expect(resolveClaim('R01 and R07 both work', KNOWN)).toBeNull();
    expect(resolveClaim('R99 is met', KNOWN)).toBeNull();
    // An id inside a longer token is not a name (R070, XR07).
    expect(resolveClaim('see R070 and XR07', KNOWN)).toBeNull();
  });
});
