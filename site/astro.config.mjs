// @ts-check
import { defineConfig } from 'astro/config';

/**
 * The results site. make_site.sh stages run files into the data folder (RDH_SITE_DATA) and
 * runs `astro build`; `--base /path/` arrives as RDH_SITE_BASE. No integration, no client
 * script, no remote resource: the output is plain HTML, CSS and SVG for any static host.
 */
const base = process.env.RDH_SITE_BASE || '/';

export default defineConfig({
  base,
  trailingSlash: 'always',
  // Four pages at a time: one at a time left the main thread idle while each page's file was
  // written (docs/benchmarks.md, the results site).
  build: { format: 'directory', inlineStylesheets: 'never', concurrency: 4 },
  compressHTML: true,
  devToolbar: { enabled: false },
  prefetch: false,
  markdown: { syntaxHighlight: false, smartypants: false },
  ...(process.env.RDH_SITE_CACHE ? { cacheDir: process.env.RDH_SITE_CACHE } : {}),
});
