import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelReader } from './model-reader.js';
import { generateSchemas, gvkKey, type GeneratedSchemas, type GroupVersionKind, type Schema } from './schema-generator.js';
import { ownSchemas } from './own-schemas.js';
import { enumFields } from './schema-tables.js';

/**
 * The schemas of the served kinds, from one of two sources: `kube-schemas.json` next to this
 * module (written into dist/ by `npm run build`, so the cloud needs no client-node at run
 * time), or, running from source (tests), generated from client-node's models in node_modules.
 * Loaded on first use and kept: the documents are large.
 */

export interface SchemaSet {
  schemas: Record<string, Schema>;
  /** The schema name of a kind, or undefined when the set has none (open schema). */
  nameOf(gvk: GroupVersionKind): string | undefined;
  /** schema name → the fields whose enum the validation checks. */
  checkedEnums: Record<string, string[]>;
}

export const SCHEMAS_FILE = 'kube-schemas.json';
const here = dirname(fileURLToPath(import.meta.url));

/** client-node's models directory, found from this module upwards; undefined when not installed. */
function modelsDir(): string | undefined {
  for (let dir = here; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules/@kubernetes/client-node/dist/gen/models');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** Generates the schemas of `roots` (built-in kinds) from client-node; empty without it. */
export function generateFromModels(roots: readonly GroupVersionKind[]): GeneratedSchemas {
  const dir = modelsDir();
  return dir ? generateSchemas(modelReader(dir), roots) : { schemas: {}, kinds: {} };
}

let prebuilt: GeneratedSchemas | undefined | null;
function readPrebuilt(): GeneratedSchemas | undefined {
  if (prebuilt === undefined) {
    const file = join(here, SCHEMAS_FILE);
    prebuilt = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as GeneratedSchemas) : null;
  }
  return prebuilt ?? undefined;
}

const generatedByRoots = new Map<string, GeneratedSchemas>();

/** The schema set for these kinds (memoized: the same roots give the same set). */
export function schemaSetFor(roots: readonly GroupVersionKind[]): SchemaSet {
  const key = roots.map(gvkKey).sort().join(',');
  let generated = readPrebuilt() ?? generatedByRoots.get(key);
  if (!generated) {
    generated = generateFromModels(roots);
    generatedByRoots.set(key, generated);
  }
  const own = ownSchemas();
  const schemas = { ...generated.schemas, ...own.schemas };
  const kinds = { ...generated.kinds, ...own.kinds };
  return { schemas, nameOf: (gvk) => kinds[gvkKey(gvk)], checkedEnums: checkedEnumsOf(schemas) };
}

/** Enum fields the validation checks, by schema name: those the tables mark `checked`. */
function checkedEnumsOf(schemas: Record<string, Schema>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [className, fields] of Object.entries(enumFields)) {
    const type = className.replace(/^V\d+(?:(?:alpha|beta)\d+)?/, '');
    const checked = Object.entries(fields).filter(([, e]) => e.checked).map(([f]) => f);
    for (const name of Object.keys(schemas)) if (name.endsWith(`.${type}`) && checked.length) out[name] = checked;
  }
  return out;
}
