import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { ResourceRef } from '../../cloud/client/client.js';
import { clusterResources } from '../../cloud/apiserver/kinds/resources.js';
import type { KubeObject } from '../../shared/types.js';
import { isMapping } from './fields.js';
import type { ResourceKind } from './types.js';

/** A kind as kubectl accepts it: "Deployment", "deployment", "deployments" or "deploy". Case-insensitive. */
export function findKind(name: string): ResourceKind | undefined {
  const wanted = name.toLowerCase();
  const def = clusterResources.find((d) => [d.kind.toLowerCase(), d.resource, d.singular, ...d.shortNames].includes(wanted));
  return def && { kind: def.kind, resource: def.resource, group: def.group, namespaced: def.namespaced };
}

/** The problems of one object to create (empty when it can be sent): a known kind and a name. */
export function objectProblems(value: unknown): string[] {
  if (!isMapping(value)) return ['expected an object with apiVersion, kind and metadata'];
  const problems: string[] = [];
  const { apiVersion, kind, metadata } = value;
  if (typeof apiVersion !== 'string') problems.push('apiVersion is missing');
  if (typeof kind !== 'string') problems.push('kind is missing');
  else if (!findKind(kind)) problems.push(`unknown kind "${kind}"`);
  const meta = isMapping(metadata) ? metadata : {};
  if (typeof meta.name !== 'string' && typeof meta.generateName !== 'string') problems.push('metadata.name is missing');
  return problems;
}

/** Where an object is created: its resource, group and namespace (default "default"). */
export function refOf(object: KubeObject): ResourceRef {
  const kind = findKind(object.kind ?? '');
  if (!kind) throw new Error(`unknown kind "${object.kind}"`);
  const ref: ResourceRef = { resource: kind.resource, group: kind.group };
  if (kind.namespaced) ref.namespace = object.metadata.namespace ?? 'default';
  return ref;
}

/** Every document of a YAML manifest file (empty documents skipped); each must be an object to create. */
export async function readManifest(root: string, path: string): Promise<KubeObject[]> {
  let text: string;
  try {
    text = await readFile(resolve(root, path), 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const objects: KubeObject[] = [];
  for (const [i, doc] of parseAllDocuments(text).entries()) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]!.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    const problems = objectProblems(value);
    if (problems.length > 0) throw new Error(`${path}, document ${i + 1}: ${problems.join('; ')}`);
    objects.push(value as KubeObject);
  }
  if (objects.length === 0) throw new Error(`${path} holds no objects`);
  return objects;
}
