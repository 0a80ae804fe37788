import Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { SANDBOX_RECIPE, buildSandboxImage, dockerfileFor, recipeDigest, runCli, sandboxImageTag } from '../../../harness/index.js';
import { bufferIo } from '../../../harness/testing.js';
import { HAS_DOCKER } from '../../support/docker.js';

describe('sandbox image recipe', () => {
  it('is tagged by a digest of its recipe: any change gives a new tag, formatting none', () => {
    const tag = sandboxImageTag();
    expect(tag).toMatch(/^rdh-sandbox:[0-9a-f]{12}$/);
    expect(sandboxImageTag({ ...SANDBOX_RECIPE, packages: [...SANDBOX_RECIPE.packages, 'git'] })).not.toBe(tag);
    expect(sandboxImageTag({ ...SANDBOX_RECIPE, revision: SANDBOX_RECIPE.revision + 1 })).not.toBe(tag);
    const reordered = Object.fromEntries(Object.entries(SANDBOX_RECIPE).reverse());
    expect(recipeDigest(reordered)).toBe(recipeDigest());
  });

  it('writes a Dockerfile for machines with a registry, naming no mirror', () => {
    expect(dockerfileFor()).toMatchInlineSnapshot(`
      "FROM debian:bookworm-slim
      RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pytest && rm -rf /var/lib/apt/lists/*
      RUN groupadd -g 1000 agent && useradd -u 1000 -g 1000 -M -d /tmp -s /bin/sh agent
      ENV LANG=C.UTF-8
      ENV PYTHONDONTWRITEBYTECODE=1
      ENV HOME=/tmp
      LABEL io.rdh.recipe=${recipeDigest()}
      "
    `);
  });
});

describe.skipIf(!HAS_DOCKER)('sandbox image on the daemon', () => {
  it('does not rebuild a current image, and status says it is present and current', async () => {
    const lines: string[] = [];
    const result = await buildSandboxImage({ docker: new Docker(), log: (l) => lines.push(l) });
    expect(result).toEqual({ tag: sandboxImageTag(), method: 'existing', seconds: 0 });
    expect(lines).toEqual([`${sandboxImageTag()} is present and current; nothing to build`]);
    const io = bufferIo();
    expect(await runCli(['sandbox', 'status', '--json'], io)).toBe(0);
    expect(JSON.parse(io.stdout())).toMatchObject({ tag: sandboxImageTag(), present: true });
  });

  it('refuses an unknown build method with a one-line usage error', async () => {
    const io = bufferIo();
    expect(await runCli(['sandbox', 'build', '--method', 'podman'], io)).toBe(2);
    expect(io.stderr()).toMatchInlineSnapshot(`
      "harness: --method: expected auto, dockerfile or debootstrap, got "podman"
      "
    `);
  });
});
