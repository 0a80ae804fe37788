import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const SOURCE_FOLDERS = ['engine', 'harness', 'site/src', 'site/scripts', 'tests'];
/** The one module of harness/ and engine/ the site may import: the run-file schemas (pure, no IO). */
const SITE_MAY_IMPORT = path.join('harness', 'run-files.ts');

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && !entry.name.startsWith('.')) out.push(...(await sourceFiles(rel)));
    } else if (/\.(ts|tsx|mts|js|mjs|astro)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every relative import in the tree, resolved to a repository path. */
async function importEdges(): Promise<ImportEdge[]> {
  const edges: ImportEdge[] = [];
  for (const folder of SOURCE_FOLDERS) {
    for (const file of await sourceFiles(folder)) {
      const text = await readFile(path.join(ROOT, file), 'utf8');
      const re = /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;
      for (const m of text.matchAll(re)) {
        const spec = m[3] ?? m[4]!;
        const to = path.normalize(path.join(path.dirname(file), spec)).replace(/\.js$/, '.ts');
        edges.push({ from: file, to, typeOnly: Boolean(m[2]) });
      }
    }
  }
  return edges;
}

const top = (p: string) => p.split(path.sep)[0]!;

/** What breaks each rule; an empty list means the architecture holds. */
export function violations(edges: ImportEdge[]): string[] {
  const bad: string[] = [];
  for (const e of edges) {
    const [from, to] = [top(e.from), top(e.to)];
    if (from === 'engine' && (to === 'harness' || to === 'site')) bad.push(`${e.from} -> ${e.to}: engine/ must not import ${to}/`);
    if (from === 'harness' && to === 'site') bad.push(`${e.from} -> ${e.to}: harness/ must not import site/`);
    // The site reads exported run files only: of harness/ and engine/ it imports the run-file schemas and nothing else, not even a type.
    if (from === 'site' && (to === 'engine' || to === 'harness') && e.to !== SITE_MAY_IMPORT) {
      bad.push(`${e.from} -> ${e.to}: site/ imports nothing from harness/ or engine/ but ${SITE_MAY_IMPORT}`);
    }
    // Crossing into another top folder goes through its one public entry (the site's one module excepted).
    if (from !== to && (to === 'engine' || to === 'harness') && e.to !== path.join(to, 'index.ts') && !(from === 'site' && e.to === SITE_MAY_IMPORT)) {
      bad.push(`${e.from} -> ${e.to}: import ${to}/index.ts, not its internals`);
    }
    // internal/ is private to the folder that holds it.
    const internalAt = e.to.split(path.sep).indexOf('internal');
    if (internalAt > 0) {
      const owner = e.to.split(path.sep).slice(0, internalAt).join(path.sep);
      if (!e.from.startsWith(owner + path.sep)) bad.push(`${e.from} -> ${e.to}: ${owner}/internal is private`);
    }
  }
  return bad;
}

describe('architecture', () => {
  it('holds: engine never imports harness or site, and folders meet only at their public entries', async () => {
    const edges = await importEdges();
    expect(edges.length).toBeGreaterThan(10);
    expect(violations(edges)).toEqual([]);
  });

  it('keeps the run-file module pure: it only re-exports (no code of its own, no IO)', async () => {
    const text = await readFile(path.join(ROOT, SITE_MAY_IMPORT), 'utf8');
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const statements = code.split(';').map((s) => s.trim()).filter(Boolean);
    expect(statements.length).toBeGreaterThan(3);
    expect(statements.filter((s) => !/^export\s+(\*|\{[\s\S]*\})(\s+as\s+\w+)?\s+from\s+'\.{1,2}\/[^']+'$/.test(s))).toEqual([]);
  });

  it('would catch the violations it exists for', () => {
    expect(
      violations([
        { from: 'engine/solve.ts', to: 'harness/journal.ts', typeOnly: false },
        { from: 'site/src/pages/index.astro', to: 'engine/index.ts', typeOnly: false },
        { from: 'site/src/pages/run.astro', to: 'harness/index.ts', typeOnly: true },
        { from: 'site/scripts/make-site.ts', to: 'harness/report/report-schema.ts', typeOnly: false },
        { from: 'site/src/lib/site-data.ts', to: 'harness/run-files.ts', typeOnly: false },
        { from: 'harness/report/write-report.ts', to: 'site/src/lib/urls.ts', typeOnly: false },
        { from: 'harness/cli.ts', to: 'engine/internal/output-cap.ts', typeOnly: false },
        { from: 'harness/cli.ts', to: 'harness/internal/x.ts', typeOnly: false },
      ]),
    ).toMatchInlineSnapshot(`
      [
        "engine/solve.ts -> harness/journal.ts: engine/ must not import harness/",
        "engine/solve.ts -> harness/journal.ts: import harness/index.ts, not its internals",
        "site/src/pages/index.astro -> engine/index.ts: site/ imports nothing from harness/ or engine/ but harness/run-files.ts",
        "site/src/pages/run.astro -> harness/index.ts: site/ imports nothing from harness/ or engine/ but harness/run-files.ts",
        "site/scripts/make-site.ts -> harness/report/report-schema.ts: site/ imports nothing from harness/ or engine/ but harness/run-files.ts",
        "site/scripts/make-site.ts -> harness/report/report-schema.ts: import harness/index.ts, not its internals",
        "harness/report/write-report.ts -> site/src/lib/urls.ts: harness/ must not import site/",
        "harness/cli.ts -> engine/internal/output-cap.ts: import engine/index.ts, not its internals",
        "harness/cli.ts -> engine/internal/output-cap.ts: engine/internal is private",
      ]
    `);
  });
});
