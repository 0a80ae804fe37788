/**
 * How to record a sweep again, from a fresh machine: every step, in order, each a command a
 * reader copies. The repository's address is the one the harness's package.json declares
 * (`repository`, read by make_site.sh); when it declares none, the step says so and where to
 * put it, rather than naming a host. Pure.
 */

export interface ReproduceStep {
  /** What the step does, in words. */
  say: string;
  /** The command to run; null for a step that is an instruction only. */
  command: string | null;
}

export interface ReproduceInput {
  /** The manifest, as the harness's folder names it (`manifests/NAME.yaml`). */
  manifest: string;
  commit: string | null;
  run: string;
  simulated: boolean;
}

/** The clone address package.json declares (`"repository": "URL"` or `{ "url": "URL" }`), without npm's `git+` prefix; null when none. */
export function repositoryOf(pkg: unknown): string | null {
  if (!pkg || typeof pkg !== 'object') return null;
  const field = (pkg as { repository?: unknown }).repository;
  const url = typeof field === 'string' ? field : field && typeof field === 'object' && typeof (field as { url?: unknown }).url === 'string' ? (field as { url: string }).url : null;
  const trimmed = url?.trim().replace(/^git\+/, '') ?? '';
  return trimmed === '' ? null : trimmed;
}

/** A value safe to paste into a shell as one word: anything else is quoted. */
const word = (text: string) => (/^[A-Za-z0-9_./:@%+=~-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`);

export function reproduceSteps(o: ReproduceInput, repository: string | null): ReproduceStep[] {
  const out = `runs/${o.run}-again`;
  return [
    repository
      ? { say: 'Clone the harness', command: `git clone ${word(repository)} recursion-depth-harness && cd recursion-depth-harness` }
      : { say: 'Clone the harness. Its package.json declares no repository address; set its "repository" field to publish one here', command: null },
    o.commit
      ? { say: 'Check out the commit the run was recorded at', command: `git checkout ${word(o.commit)}` }
      : { say: 'The commit the run was recorded at is unknown: use the harness version above', command: null },
    { say: 'Install the exact dependencies (Node 20.19 or later)', command: 'npm ci' },
    { say: 'Start Docker (every agent works in a sandbox container), then build the sandbox image', command: 'npm run harness -- sandbox build' },
    {
      say: o.simulated ? 'Record the sweep again into a folder of its own (SIMULATED: no provider key is needed)' : 'Record the sweep again into a folder of its own (set the keys the manifest\'s api_key_env names first)',
      command: `npm run harness -- record ${word(o.manifest)} --out ${word(out)}`,
    },
  ];
}
