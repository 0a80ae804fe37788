import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (CI installs it with apt-get; nothing is downloaded at run time). */
export const CHROMIUM = process.env.RDH_CHROMIUM ?? '/usr/bin/chromium';

/**
 * Headless Chromium as root on a machine with no network but the package registries: no
 * sandbox, no GPU, and nothing that reaches for the network at start (component updates,
 * sync, background networking), with a fresh profile every time.
 */
export async function launchChromium(options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number }; localOnly?: boolean } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  // The fresh profile is the --user-data-dir (playwright passes it so, and refuses it in args).
  const profile = await mkdtemp(path.join(tmpdir(), 'rdh-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      // localOnly: no host name resolves but 127.0.0.1, so nothing can be fetched from outside (routing every request would do it too, but turns the HTTP cache off).
      ...(options.localOnly ? ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] : []),
    ],
    colorScheme: options.colorScheme ?? 'light',
    viewport: options.viewport ?? { width: 1280, height: 900 },
    offline: false,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Browser tests run whenever Debian's Chromium is installed. In CI (the `CI` variable set) a
 * missing browser is a failure, never a skip; on a developer machine without it they are
 * skipped, loudly.
 */
export async function chromiumReady(executable: string = CHROMIUM, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const { access, constants } = await import('node:fs/promises');
  const ok = await access(executable, constants.X_OK).then(() => true, () => false);
  if (ok) return true;
  const reason = `no Chromium at ${executable} (apt-get install chromium)`;
  if (env.CI) throw new Error(`CI is set, so the browser tests may not be skipped: ${reason}`);
  console.warn(`\n!!! SKIPPING the site's browser tests: ${reason}. CI will run them. !!!\n`);
  return false;
}
