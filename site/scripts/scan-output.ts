import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { SecretKind } from '../../harness/run-files.js';
import { formatOf } from './scan-views.js';
import type { SecretScanner } from './secret-scan.js';

/**
 * The post-build scan: every file of a built site, after `astro build` and before the site is
 * swapped in. Defense in depth behind the staging scan: whatever a page composes from the run
 * files (text joined across fields, decoded, rendered from markdown) is read here as the
 * browser will be served it, with each format's escapes decoded (scan-views.ts).
 */

export interface OutputFinding {
  /** The file, relative to the built folder, `/`-separated. */
  file: string;
  /** The line, or null when it is the file's path that holds the secret (it would be a URL). */
  line: number | null;
  kind: SecretKind;
  /** For a known value: which variable's value it is. */
  variable: string | null;
  decoded: boolean;
}

export interface OutputScan {
  files: number;
  findings: OutputFinding[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A file as text. Not UTF-8 (an image, a font): read byte for byte as Latin-1, so an ASCII
 * token inside binary data is still seen; nothing is skipped.
 */
function asText(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** Every file under `dir`, sorted, `/`-separated (a build writes no links; one would be read as the file it names). */
async function filesUnder(dir: string, relative = ''): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(dir, relative), { withFileTypes: true });
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = relative ? `${relative}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await filesUnder(dir, rel)));
    else out.push(rel);
  }
  return out;
}

/** Scans every file under `dir` (content and path) with `scanner`; reports where, never what. */
export async function scanOutput(dir: string, scanner: SecretScanner): Promise<OutputScan> {
  const files = await filesUnder(dir);
  const findings: OutputFinding[] = [];
  for (const file of files) {
    for (const kind of scanner.scanName(file)) findings.push({ file, line: null, kind, variable: null, decoded: false });
    const bytes = await readFile(path.join(dir, ...file.split('/')));
    for (const f of scanner.scan(asText(bytes), formatOf(file))) findings.push({ file, line: f.line, kind: f.kind, variable: f.variable, decoded: f.decoded });
  }
  return { files: files.length, findings };
}
