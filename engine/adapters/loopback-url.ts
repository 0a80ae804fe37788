/**
 * Whether a base URL points at this machine: `localhost`, 127.0.0.0/8 or ::1. The call header
 * tells a system under test the experiment's design, so by default it goes to these alone (a
 * simulated provider or a local test server), never to a remote endpoint.
 */
export function isLoopbackUrl(baseURL: string): boolean {
  if (!URL.canParse(baseURL)) return false;
  const host = new URL(baseURL).hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  // WHATWG URL parsing already normalised any IPv4 spelling (0x7f.1, 2130706433) to dotted decimal.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}
