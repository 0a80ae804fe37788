import path from 'node:path';

/**
 * The staged data folder the site is built from: `RDH_SITE_DATA` (make_site.sh sets it to an
 * absolute path), else `site/data` under the working folder.
 */
export function dataDir(): string {
  return path.resolve(process.env.RDH_SITE_DATA ?? path.join('site', 'data'));
}

/**
 * The harness's clone address, as its package.json declares it (`repository`): make_site.sh
 * passes it as `RDH_SITE_REPOSITORY`, empty when package.json declares none.
 */
export function siteRepository(): string | null {
  const value = process.env.RDH_SITE_REPOSITORY?.trim();
  return value ? value : null;
}
