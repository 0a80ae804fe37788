/**
 * The meta refresh of `make_site.sh --watch`: make_site sets `RDH_SITE_REFRESH` (whole seconds)
 * for the watch's builds only, so a page being read while a sweep records reloads itself; the
 * published site is built without it and ships no refresh (and no script). Anything but a
 * whole number from 1 to 3600 is ignored rather than written into every page's head.
 */
export function refreshSeconds(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.RDH_SITE_REFRESH;
  if (raw === undefined || !/^[1-9][0-9]{0,3}$/.test(raw)) return undefined;
  const seconds = Number(raw);
  return seconds <= 3600 ? seconds : undefined;
}
