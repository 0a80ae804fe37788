import { pathToFileURL } from 'node:url';

let typeScriptLoader: Promise<void> | undefined;

/**
 * Imports a task's TypeScript module (an oracle's case recipe, `cases.recipe`). Under tsx (the
 * sources, tests) it imports as it is; the compiled CLI (dist/) has no TypeScript loader, so the
 * first recipe registers tsx's, once. A recipe imports harness modules by their source path and so
 * gets the sources' copies of them: its errors are recognised by their `code`, not their class.
 */
export async function importRecipe(file: string): Promise<Record<string, unknown>> {
  if (file.endsWith('.ts') && import.meta.url.endsWith('.js')) {
    typeScriptLoader ??= import('tsx/esm/api').then(({ register }) => void register());
    await typeScriptLoader;
  }
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}
