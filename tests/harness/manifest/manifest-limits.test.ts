import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_DEPTH_CAP,
  Manifest,
  ProviderConfigInvalidError,
  buildPlanReport,
  checkProviderConfig,
  loadManifest,
  loadProviderConfig,
  manifestDigest,
  renderPlanJson,
  renderPlanText,
  runCli,
} from '../../../harness/index.js';
import { MAX_DATA_FILE_BYTES, bufferIo } from '../../../harness/testing.js';
import { patched, scratch, VALID_MANIFEST, yamlOf } from './manifest-fixtures.js';

type Scratch = Awaited<ReturnType<typeof scratch>>;
let tmp: Scratch;
beforeAll(async () => {
  tmp = await scratch();
});
afterAll(() => tmp.cleanup());

let counter = 0;
const manifestText = (patch: Record<string, unknown>) => yamlOf(patched(VALID_MANIFEST, patch));

/** Plans `text` as a manifest file; `exit N: <stderr>` with scratch paths as <tmp>, or the stdout when accepted. */
async function plan(text: string, ...argv: string[]): Promise<{ code: number; stdout: string; stderr: string; line: string }> {
  const file = await tmp.write(`m${counter++}.yaml`, text);
  const io = bufferIo();
  const code = await runCli(['plan', file, ...argv], io);
  const stderr = io.stderr().replaceAll(tmp.dir, '<tmp>').replace(/<tmp>\/m\d+\.yaml/g, '<file>');
  return { code, stdout: io.stdout(), stderr, line: `exit ${code}: ${stderr.trimEnd()}` };
}

describe('families are compared as names, not spellings (item 8)', () => {
  it('refuses a cross_family claim whose families differ only in case and space', async () => {
    const { line } = await plan(manifestText({ executor: { family: 'OpenAI' }, reviewer: { family: '  openai ' } }));
    expect(line).toMatchInlineSnapshot(`"exit 2: harness: <file>:23: reviewer.family: "openai" is also executor.family, which contradicts independence: cross_family; use a reviewer from another family, or claim independence: same_family"`);
  });

  it('accepts a same_family claim spelt two ways, and digests the spellings as one manifest', async () => {
    const spelt = (a: string, b: string) => patched(VALID_MANIFEST, { independence: 'same_family', executor: { family: a }, reviewer: { family: b } });
    const { code, stdout } = await plan(yamlOf(spelt('OpenAI', 'openai ')));
    expect(code).toBe(0);
    expect(stdout).toContain('both from family "openai"');
    expect(manifestDigest(Manifest.parse(spelt('OpenAI', 'openai ')))).toBe(manifestDigest(Manifest.parse(spelt('openai', 'OPENAI'))));
  });

  it('refuses a blank family', async () => {
    const { line } = await plan(manifestText({ reviewer: { family: '   ' } }));
    expect(line).toMatchInlineSnapshot(`"exit 2: harness: <file>:23: reviewer.family: "   " is blank; write the family name, or leave the field out; e.g. family: example-family-a"`);
  });

  it('compares the provider configuration\'s real families the same way', async () => {
    const config = {
      version: 1,
      providers: { gateway: { base_url: 'https://gateway.example/v1', api_key_env: 'GATEWAY_API_KEY' } },
      models: {
        'executor-model': { provider: 'gateway', model: 'vendor-a/big', family: 'Vendor-A' },
        'reviewer-model': { provider: 'gateway', model: 'vendor-a/small', family: ' vendor-a' },
      },
    };
    const providers = await loadProviderConfig(await tmp.write('families.yaml', yamlOf(config)));
    // The engine's roster reads these too, so its independence rule sees one family as well.
    expect(Object.values(providers.config.models).map((m) => m.family)).toEqual(['vendor-a', 'vendor-a']);
    const loaded = await loadManifest(await tmp.write('families-manifest.yaml', manifestText({})));
    const error = (() => {
      try {
        checkProviderConfig(loaded, providers);
      } catch (e) {
        return e as ProviderConfigInvalidError;
      }
    })();
    expect(error?.message.replaceAll(tmp.dir, '<tmp>')).toMatchInlineSnapshot(`"<tmp>/families.yaml:14: models.reviewer-model.family: executor and reviewer both run as family "vendor-a" (models.executor-model, models.reviewer-model), but <tmp>/families-manifest.yaml claims independence: cross_family; serve the reviewer from a model of another family, or claim same_family in the manifest"`);
  });
});

describe('figures are finite, or the manifest is refused (item 9)', () => {
  it(`refuses a cap above ${MAX_DEPTH_CAP}, and says why`, async () => {
    const lines = [(await plan(manifestText({ depth_caps: [1, 11], repetitions: { by_cap: undefined } }))).line, (await plan(manifestText({ depth_caps: [1e9], repetitions: { by_cap: undefined } }))).line];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <file>:6: depth_caps[1]: must be at most 10: a cap d holds b^d leaves, so a deeper cap is a bill nobody can pay, got 11; e.g. depth_caps: [1, 2, 3, 4]",
        "exit 2: harness: <file>:5: depth_caps[0]: must be at most 10: a cap d holds b^d leaves, so a deeper cap is a bill nobody can pay, got 1000000000; e.g. depth_caps: [1, 2, 3, 4]",
      ]
    `);
  });

  it('refuses a projection that cannot be counted exactly, pointing at the field to lower', async () => {
    const deep = { depth_caps: [1, 10], repetitions: { default: 1, by_cap: undefined } };
    const lines = [
      (await plan(manifestText({ ...deep, projected_branching: 1e6 }))).line,
      (await plan(manifestText({ ...deep, projected_branching: 1e300 }))).line,
      (await plan(manifestText({ ...deep, projected_branching: 4, unit: { token_ceiling: 9e15 } }))).line,
      (await plan(manifestText({ ...deep, projected_branching: 4, unit: { cost_ceiling_usd: 1e300 } }))).line,
    ];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <file>:29: projected_branching: at b = 1000000 and cap 10 the plan projects about 1.0e+60 sessions, above 9,007,199,254,740,991, the largest whole number counted exactly; lower projected_branching or the deepest cap",
        "exit 2: harness: <file>:29: projected_branching: at b = 1e+300 and cap 10 the plan projects about 1.0e+300 sessions, above 9,007,199,254,740,991, the largest whole number counted exactly; lower projected_branching or the deepest cap",
        "exit 2: harness: <file>:26: unit.token_ceiling: the plan's token bound (sessions x unit.token_ceiling) comes to about 5.5e+17, above 9,007,199,254,740,991, the largest whole number counted exactly; lower unit.token_ceiling",
        "exit 2: harness: <file>:27: unit.cost_ceiling_usd: the plan's cost bound (sessions x unit.cost_ceiling_usd) comes to about 6.1e+301, above 9,007,199,254,740,991, the largest whole number counted exactly; lower unit.cost_ceiling_usd",
      ]
    `);
  });

  it('refuses infinite and not-a-number values without printing them as figures', async () => {
    const text = manifestText({}).replace('projected_branching: 3', 'projected_branching: .inf').replace('cost_ceiling_usd: 5', 'cost_ceiling_usd: .nan');
    const { stderr } = await plan(text);
    expect(stderr).toMatchInlineSnapshot(`
      "harness: <file>:30: unit.cost_ceiling_usd: expected a number, got .nan (not a number); e.g. cost_ceiling_usd: 5
      <file>:32: projected_branching: expected a number, got .inf (infinity); e.g. projected_branching: 4
      "
    `);
    expect(stderr).not.toMatch(/NaN|Infinity|∞/);
  });

  it('prints every figure of the deepest countable sweep as a number: no ∞, NaN or null', async () => {
    const text = manifestText({ depth_caps: [1, MAX_DEPTH_CAP], repetitions: { default: 4, by_cap: undefined }, projected_branching: 4.4, max_sessions: 9e15 });
    const asText = await plan(text);
    const asJson = await plan(text, '--json');
    expect([asText.code, asJson.code]).toEqual([0, 0]);
    expect(asText.stdout).not.toMatch(/∞|NaN|Infinity|undefined/);
    expect(asJson.stdout).not.toMatch(/null|NaN|Infinity/);
    expect(asText.stdout).toMatch(/^ {2}all +16 +179,822,774 +180T +\$899,113,869$/m);
    expect(JSON.parse(asJson.stdout).projection.total).toMatchInlineSnapshot(`
      {
        "cells": 16,
        "costBoundUsd": 899113869.140649,
        "sessions": 179822773.82813,
        "sessionsByPair": {
          "executor": 145266080.49461,
          "reviewer": 34556693.33352,
        },
        "tokenBound": 179822773828129.75,
      }
    `);
  });

  it('treats a figure that is not finite as a bug in the report, never as something to print', async () => {
    const report = buildPlanReport(await loadManifest(await tmp.write('finite.yaml', manifestText({}))));
    const broken = { ...report, projection: { ...report.projection, total: { ...report.projection.total, tokenBound: Infinity } } };
    expect(() => renderPlanJson(broken)).toThrowErrorMatchingInlineSnapshot(`[RangeError: plan --json: tokenBound is Infinity; figures must be finite (this is a bug)]`);
    expect(() => renderPlanText(broken)).toThrowErrorMatchingInlineSnapshot(`[RangeError: a figure to print is Infinity; figures must be finite (this is a bug)]`);
  });
});

describe('size limits (item 10)', () => {
  it(`reads a manifest of exactly ${MAX_DATA_FILE_BYTES} bytes and refuses one byte more`, async () => {
    const body = manifestText({});
    const padded = (size: number) => `${body}#${'x'.repeat(size - body.length - 2)}\n`;
    expect(Buffer.byteLength(padded(MAX_DATA_FILE_BYTES))).toBe(MAX_DATA_FILE_BYTES);
    expect((await plan(padded(MAX_DATA_FILE_BYTES))).code).toBe(0);
    expect((await plan(padded(MAX_DATA_FILE_BYTES + 1))).line).toMatchInlineSnapshot(`"exit 2: harness: <file>: cannot read the manifest: it is 1048577 bytes, above the limit of 1048576 (1 MiB); a manifest is a page of settings, so this is not one (copy manifests/smoke.yaml to start)"`);
  });

  it('refuses a FIFO rather than wait on it forever', async () => {
    const fifo = path.join(tmp.dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const io = bufferIo();
    expect(await runCli(['plan', fifo], io)).toBe(2);
    expect(io.stderr().replaceAll(tmp.dir, '<tmp>')).toMatchInlineSnapshot(`
      "harness: <tmp>/fifo.yaml: cannot read the manifest: it is not a regular file; a manifest is a page of settings, so this is not one (copy manifests/smoke.yaml to start)
      "
    `);
  });

  it('refuses long strings in one short line that never repeats them', async () => {
    const huge = 'a'.repeat(500_000);
    const results = [
      await plan(manifestText({ name: 'n'.repeat(65) })),
      await plan(manifestText({ name: huge })),
      await plan(manifestText({ executor: { model: huge } })),
      await plan(manifestText({ executor: { family: huge } })),
      await plan(manifestText({ spec: huge })),
      await plan(manifestText({ [huge]: 1 })),
      await plan(manifestText({ repetitions: { by_cap: { ['9'.repeat(100_000)]: 2 } } })),
      await plan(manifestText({}).replace('name: fixture', `name: !${huge} fixture`)),
    ];
    for (const { stderr } of results) {
      expect(stderr.split('\n').filter(Boolean)).toHaveLength(1);
      expect(stderr.length).toBeLessThan(400);
    }
    expect(results.map((r) => r.line)).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <file>:2: name: is longer than 64 characters, the limit for this field; e.g. name: recursion-depth",
        "exit 2: harness: <file>:2: name: is longer than 64 characters, the limit for this field; e.g. name: recursion-depth",
        "exit 2: harness: <file>:17: executor.model: is longer than 200 characters, the limit for this field; e.g. model: executor-model",
        "exit 2: harness: <file>:18: executor.family: is longer than 64 characters, the limit for this field; e.g. family: example-family-a",
        "exit 2: harness: <file>:3: spec: is longer than 1024 characters, the limit for this field; e.g. spec: ../spec/my-task",
        "exit 2: harness: <file>:41: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...: unknown field; remove it (fields here: version, name, spec, depth_caps, repetitions, arms, executor, reviewer, independence, merge_attempts, unit, budget, grade_merges, grade_leaves, max_sessions, max_cost_usd, projected_branching, max_children, concurrency, pairing, simulated, analysis, hypothesis)",
        "exit 2: harness: <file>:12: repetitions.by_cap.9999999999999999999999999999999999999999999999999999999999999...: "9999999999999999999999999999999999999..." is longer than 16 characters, the limit for this field; e.g. by_cap: {3: 4, 4: 4}",
        "exit 2: harness: <file>:2:7: YAML syntax error: Unresolved tag: !aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...; remove the tag (the word after "!"); this file needs none",
      ]
    `);
  });

  it('holds the provider configuration to the same limits', async () => {
    const lines: string[] = [];
    const base = { version: 1, providers: { gateway: { base_url: 'https://gateway.example/v1', api_key_env: 'GATEWAY_API_KEY' } }, models: { m: { provider: 'gateway' } } };
    for (const config of [
      patched(base, { models: { m: { model: 'x'.repeat(201) } } }),
      patched(base, { providers: { gateway: { base_url: `https://gateway.example/${'v'.repeat(2048)}` } } }),
      patched(base, { providers: { gateway: { api_key_env: `K${'_'.repeat(128)}` } } }),
    ]) {
      const error = await loadProviderConfig(await tmp.write(`limits-${counter++}.yaml`, yamlOf(config))).catch((e: unknown) => e as ProviderConfigInvalidError);
      lines.push((error as ProviderConfigInvalidError).message.replace(/^.*limits-\d+\.yaml/, '<file>'));
    }
    expect(lines).toMatchInlineSnapshot(`
      [
        "<file>:9: models.m.model: is longer than 200 characters, the limit for this field; e.g. model: vendor-a/model-name",
        "<file>:4: providers.gateway.base_url: is longer than 2048 characters, the limit for this field; e.g. base_url: "https://api.example.com/v1"",
        "<file>:5: providers.gateway.api_key_env: is not an environment variable name (letters, digits and "_", not starting with a digit, at most 128 characters; value not shown); write the NAME of the variable holding the key, never the key, e.g. api_key_env: OPENROUTER_API_KEY",
      ]
    `);
  });
});

describe('duplicate keys are refused, naming both lines (item 11)', () => {
  it('refuses keys that differ only in YAML type, a nested duplicate and one in a flow mapping', async () => {
    const valid = manifestText({});
    const lines = [
      (await plan(valid.replace('    "3": 2', '    3: 2\n    "3": 4'))).line,
      (await plan(valid.replace('  rung: 3\nreviewer:', '  rung: 3\n  model: other\nreviewer:'))).line,
      (await plan(valid.replace(/unit:\n(  .*\n)+/, 'unit: {max_turns: 60, token_ceiling: 1000000, max_turns: 61}\n'))).line,
      (await plan(valid.replace('merge_attempts: 2', 'merge_attempts: 2\n2.0: x\n2: y'))).line,
    ];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <file>:12:5: "3" is written twice in repetitions.by_cap, on lines 11 and 12 (3 and "3" are one key once read); each key may appear once: remove or rename one of them",
        "exit 2: harness: <file>:20:3: model is written twice in executor, on lines 17 and 20; each key may appear once: remove or rename one of them",
        "exit 2: harness: <file>:27:47: max_turns is written twice in unit, on lines 27 and 27; each key may appear once: remove or rename one of them",
        "exit 2: harness: <file>:28:1: 2 is written twice in the top level, on lines 27 and 28 (2.0 and 2 are one key once read); each key may appear once: remove or rename one of them",
      ]
    `);
  });

  it('refuses keys that are lists, mappings or aliases, tags it cannot read, and a second document', async () => {
    const valid = manifestText({});
    const lines = [
      (await plan(`${valid}? [a, b]\n: 1\n`)).line,
      (await plan(`anchor: &x k\n${valid}*x : 1\n`)).line,
      (await plan(valid.replace('name: fixture', 'name: !custom fixture'))).line,
      (await plan(`${valid}---\nversion: 1\n`)).line,
    ];
    expect(lines).toMatchInlineSnapshot(`
      [
        "exit 2: harness: <file>:41:3: (top level): a key must be a plain name, not a list or mapping; write the field name out",
        "exit 2: harness: <file>:42:1: (top level): a key must be a plain name, not an alias; write the field name out",
        "exit 2: harness: <file>:2:7: YAML syntax error: Unresolved tag: !custom; remove the tag (the word after "!"); this file needs none",
        "exit 2: harness: <file>:41:1: the file holds more than one YAML document (a line "---" or "..." starts another); a data file is one document: remove the separator and merge or delete what follows it",
      ]
    `);
  });

  it('refuses a duplicate model in a provider configuration', async () => {
    const text = 'version: 1\nproviders:\n  gateway: {base_url: "https://g.example/v1", api_key_env: K}\nmodels:\n  m: {provider: gateway}\n  m: {provider: gateway, family: x}\n';
    const error = (await loadProviderConfig(await tmp.write('dup-providers.yaml', text)).catch((e: unknown) => e)) as Error;
    expect(error.message.replaceAll(tmp.dir, '<tmp>')).toMatchInlineSnapshot(`"<tmp>/dup-providers.yaml:6:3: m is written twice in models, on lines 5 and 6; each key may appear once: remove or rename one of them"`);
  });
});
