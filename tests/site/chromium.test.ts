import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { chromiumReady } from '../../site/scripts/chromium.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');

describe('the browser tests in CI', () => {
  it('fail, never skip, when CI is set and Chromium is missing', async () => {
    await expect(chromiumReady('/nonexistent/chromium', { CI: '1' })).rejects.toThrow('CI is set, so the browser tests may not be skipped: no Chromium at /nonexistent/chromium (apt-get install chromium)');
  });

  it('are skipped loudly off CI when Chromium is missing, and run when it is there', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      expect(await chromiumReady('/nonexistent/chromium', {})).toBe(false);
      expect(warn.mock.calls.flat().join('')).toContain('SKIPPING the site\'s browser tests');
    } finally {
      warn.mockRestore();
    }
    expect(await chromiumReady(process.execPath, { CI: '1' })).toBe(true);
  });

  it('.ci/run installs Debian\'s chromium when /usr/bin/chromium is missing, and sets CI', async () => {
    const script = await readFile(path.join(REPO, '.ci', 'run'), 'utf8');
    expect(script).toMatch(/^\[\[ -x \/usr\/bin\/chromium \]\] \|\| need\+=\(chromium /m);
    expect(script).toMatch(/apt-get install .*"\$\{need\[@\]\}"/);
    expect(script).toMatch(/^export CI="\$\{CI:-1\}"$/m);
    expect(script.indexOf('need+=(chromium')).toBeLessThan(script.indexOf('npm test'));
  });
});
