// `npm run build` step: writes dist/cloud/apiserver/schemas/kube-schemas.json from client-node's
// models (a devDependency), which the cloud reads at run time instead (see schema-set.ts).
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'dist/cloud/apiserver/schemas');
const { writeKubeSchemas } = await import(pathToFileURL(join(dir, 'write-schemas.js')).href);
const written = writeKubeSchemas(dir);
process.stdout.write(`schemas: ${written.kinds} kinds, ${Math.round(written.bytes / 1024)} KiB in ${written.file}\n`);
