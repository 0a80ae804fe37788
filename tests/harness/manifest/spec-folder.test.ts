import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELD_OUT_MARKER, REPO_ROOT, loadManifest, runCli } from '../../../harness/index.js';
import { MAX_SPEC_ENTRIES, bufferIo } from '../../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;

/**
 * The scratch folder holds, beside the fixture's valid `spec/`:
 *   oracle/sqlcsv/            marked held out, and holding a SPEC.md and requirements.yaml of its own,
 *                             so only the marker can be what refuses it
 *   oracle/sqlcsv/cases/      the same, one level inside
 *   spec-link -> oracle/sqlcsv
 *   leaky/                    a complete spec with a link into the oracle
 *   above/                    a complete spec with an oracle folder below it
 */
beforeAll(async () => {
  tmp = await scratch();
  const specFiles = async (dir: string) => {
    await mkdir(path.join(tmp.dir, dir), { recursive: true });
    await writeFile(path.join(tmp.dir, dir, 'SPEC.md'), '# a spec\n');
    await writeFile(path.join(tmp.dir, dir, 'requirements.yaml'), '- id: R01\n');
  };
  await specFiles('oracle/sqlcsv/cases');
  await specFiles('oracle/sqlcsv');
  await writeFile(path.join(tmp.dir, 'oracle/sqlcsv', HELD_OUT_MARKER), 'held out\n');
  await symlink(path.join(tmp.dir, 'oracle/sqlcsv'), path.join(tmp.dir, 'spec-link'));
  await specFiles('leaky');
  await symlink('../oracle/sqlcsv/cases', path.join(tmp.dir, 'leaky', 'examples'));
  await specFiles('above');
  await mkdir(path.join(tmp.dir, 'above', 'private', 'oracle'), { recursive: true });
  await writeFile(path.join(tmp.dir, 'above', 'private', 'oracle', HELD_OUT_MARKER), 'held out\n');
  await mkdir(path.join(tmp.dir, 'no-requirements'));
  await writeFile(path.join(tmp.dir, 'no-requirements', 'SPEC.md'), '# a spec\n');
  await specFiles('crowded');
  await mkdir(path.join(tmp.dir, 'crowded', 'many'));
  await Promise.all(Array.from({ length: MAX_SPEC_ENTRIES }, (_, i) => writeFile(path.join(tmp.dir, 'crowded', 'many', `f${i}`), '')));
});
afterAll(() => tmp.cleanup());

/** Plans a manifest whose spec is `spec`; returns the exit code and the one line of stderr. */
async function plan(spec: string): Promise<string> {
  const file = await tmp.write(`m-${spec.replace(/[^a-z]/gi, '_')}.yaml`, yamlOf(patched(VALID_MANIFEST, { spec })));
  const io = bufferIo();
  const code = await runCli(['plan', file], io);
  return `exit ${code}: ${io.stderr().replaceAll(tmp.dir, '<tmp>').trimEnd()}`;
}

describe('spec: a spec folder, never the oracle (item 7)', () => {
  it('accepts a folder holding SPEC.md and requirements.yaml, and the shipped manifests', async () => {
    expect(await plan('./spec')).toBe('exit 0: ');
    await expect(loadManifest('manifests/smoke.yaml')).resolves.toBeDefined();
    await expect(loadManifest('manifests/recursion-depth.yaml')).resolves.toBeDefined();
  });

  it('refuses the oracle folder, a folder inside it, a link to it, a spec holding a link into it, and a folder above it', async () => {
    const lines = [await plan('./oracle/sqlcsv'), await plan('./oracle/sqlcsv/cases'), await plan('./spec-link'), await plan('./leaky'), await plan('./above')];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <tmp>/m-__oracle_sqlcsv.yaml:3: spec: "./oracle/sqlcsv" is a folder of held-out material (it holds .held-out); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never at an oracle",
        "exit 2: harness: <tmp>/m-__oracle_sqlcsv_cases.yaml:3: spec: "./oracle/sqlcsv/cases" lies inside <tmp>/oracle/sqlcsv, which is a folder of held-out material (it holds .held-out); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never at an oracle",
        "exit 2: harness: <tmp>/m-__spec_link.yaml:3: spec: "./spec-link" (which resolves to <tmp>/oracle/sqlcsv) is a folder of held-out material (it holds .held-out); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never at an oracle",
        "exit 2: harness: <tmp>/m-__leaky.yaml:3: spec: "./leaky" holds a symbolic link that leaves it, examples; a spec folder is handed to agents whole, so copy the file in instead of linking to it",
        "exit 2: harness: <tmp>/m-__above.yaml:3: spec: "./above" holds a folder of held-out material, private/oracle (it holds .held-out); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never above an oracle",
      ]
    `);
  });

  it('refuses the real oracle through a relative path, and the checkout above it', async () => {
    const inRepo = path.join(REPO_ROOT, 'manifests');
    const lines: string[] = [];
    for (const spec of ['../oracle/sqlcsv', '..']) {
      const file = await tmp.write(`repo-${lines.length}.yaml`, yamlOf(patched(VALID_MANIFEST, { spec: path.relative(tmp.dir, path.join(inRepo, spec)) })));
      const io = bufferIo();
      const code = await runCli(['plan', file], io);
      lines.push(`exit ${code}: ${io.stderr().replaceAll(tmp.dir, '<tmp>').replaceAll(REPO_ROOT, '<repo>').replace(/"[./]*(\.\.\/)+[^"]*"/, '"<relative>"').trimEnd()}`);
    }
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <tmp>/repo-0.yaml:3: spec: "<relative>" is a folder of held-out material (it holds .held-out); agents read the spec, so point spec at the folder of SPEC.md and requirements.yaml, never at an oracle",
        "exit 2: harness: <tmp>/repo-1.yaml:3: spec: "<relative>" has no SPEC.md and no requirements.yaml; a spec folder holds SPEC.md and requirements.yaml, so point spec at one (e.g. ../spec/<task> from manifests/)",
      ]
    `);
  });

  it('refuses /etc, a file, a folder without requirements.yaml, and a folder too large to be a spec', async () => {
    const lines = [await plan('/etc'), await plan('./spec/SPEC.md'), await plan('./no-requirements'), await plan('./crowded')];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <tmp>/m-_etc.yaml:3: spec: "/etc" has no SPEC.md and no requirements.yaml; a spec folder holds SPEC.md and requirements.yaml, so point spec at one (e.g. ../spec/<task> from manifests/)",
        "exit 2: harness: <tmp>/m-__spec_SPEC_md.yaml:3: spec: "./spec/SPEC.md" is a file, not a folder (looked at <tmp>/spec/SPEC.md); spec is relative to the manifest's own folder, <tmp>",
        "exit 2: harness: <tmp>/m-__no_requirements.yaml:3: spec: "./no-requirements" has no requirements.yaml; a spec folder holds SPEC.md and requirements.yaml, so point spec at one (e.g. ../spec/<task> from manifests/)",
        "exit 2: harness: <tmp>/m-__crowded.yaml:3: spec: "./crowded" holds more than 2000 entries, so it is not a spec folder; point spec at the folder of SPEC.md and requirements.yaml",
      ]
    `);
  });

  it('finds the marker in every oracle folder of the checkout, and in no spec folder', async () => {
    const oracles = (await readdir(path.join(REPO_ROOT, 'oracle'), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(oracles.length).toBeGreaterThan(0);
    for (const name of oracles) expect((await readdir(path.join(REPO_ROOT, 'oracle', name))).includes(HELD_OUT_MARKER), `oracle/${name}/${HELD_OUT_MARKER}`).toBe(true);
    const specs = await readdir(path.join(REPO_ROOT, 'spec'));
    for (const name of specs) expect((await readdir(path.join(REPO_ROOT, 'spec', name), { recursive: true })).map(String).some((f) => f.endsWith(HELD_OUT_MARKER))).toBe(false);
  });
});
