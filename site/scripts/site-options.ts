/**
 * What make_site.sh's steps take and print to, in a module of their own: make-site.ts runs the
 * steps and hands them to the watch (site-watch.ts), which names them by these types only, so
 * the two never import each other.
 */

export interface MakeSiteOptions {
  /** Run folders to publish. Default: every folder under runs/ that holds a report. */
  runs: string[];
  /** Serve the site under this path (`/path/`). Default `/`. */
  base: string;
  /** Provider configurations whose api_key_env values are searched for, beside $RDH_PROVIDERS and manifests/*.yaml. */
  providers: string[];
  /** Where the site is written. Default site/dist. */
  out: string;
  /** Where the allowlisted files are staged for the build. Default site/data. */
  data: string;
  /** Stage and scan only; no `astro build`. */
  stageOnly: boolean;
  /** `--watch`: follow the one named run while it records, serving it on 127.0.0.1 at `port` (site-watch.ts). Default: build once. */
  watch?: { port: number };
}

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** make_site's own steps, reused as they are by the watch: the allowlist and secret scan, and the astro build. */
export interface SiteSteps {
  stageRuns(options: MakeSiteOptions, io: Io, env?: NodeJS.ProcessEnv): Promise<{ runs: Array<{ name: string; dir: string; shownAs: string }>; files: number }>;
  buildSite(options: MakeSiteOptions, io: Io, env?: NodeJS.ProcessEnv): Promise<void>;
}
