// Regenerates the committed JSON Schemas: `npx tsx harness/schema/write.ts`.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonSchemaFiles } from './json-schemas.js';

const here = path.dirname(fileURLToPath(import.meta.url));
for (const [name, text] of Object.entries(jsonSchemaFiles())) {
  await writeFile(path.join(here, name), text);
  console.log(`wrote harness/schema/${name}`);
}
