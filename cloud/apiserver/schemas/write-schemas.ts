import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterResources } from '../kinds/resources.js';
import { servedKinds } from './field-validation.js';
import { generateFromModels, SCHEMAS_FILE } from './schema-set.js';

/**
 * Build step (scripts/build-schemas.mjs): the schemas of every built-in kind the cloud can
 * serve, generated from client-node's models into `dir`/kube-schemas.json, so that the cloud
 * reads them at run time without client-node (a devDependency). ComponentStatus is served
 * when the cloud has stoppable components (pipeline.ts).
 */
export function writeKubeSchemas(dir: string): { file: string; bytes: number; kinds: number } {
  const roots = [...servedKinds(clusterResources), { group: '', version: 'v1', kind: 'ComponentStatus' }];
  const generated = generateFromModels(roots);
  if (Object.keys(generated.kinds).length === 0) throw new Error('@kubernetes/client-node is not installed: its models are the schemas\' source');
  const file = join(dir, SCHEMAS_FILE);
  const text = JSON.stringify(generated);
  writeFileSync(file, text);
  return { file, bytes: text.length, kinds: Object.keys(generated.kinds).length };
}
