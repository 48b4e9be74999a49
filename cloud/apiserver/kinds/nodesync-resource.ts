import type { StatusCause } from '../../../shared/errors.js';
import type { KubeObject } from '../../../shared/types.js';
import type { Printer, ResourceDef, ResourceStrategy } from './registry.js';
import { age } from '../rest/tables.js';
import { NODESYNC_GROUP, type AckedObject, type NodeSync } from '../../client/nodesync.js';

/** NodeSync as the apiserver serves it: printer, validation, resource table row. Its shape is in cloud/client/nodesync.ts. */

const objectsOf = (obj: KubeObject): Record<string, AckedObject> => (obj as NodeSync).status?.objects ?? {};

export const nodeSyncPrinter: Printer = {
  columns: [
    { name: 'Name', type: 'string', format: 'name', description: 'The node this ledger belongs to.' },
    { name: 'Objects', type: 'integer', description: 'Number of objects the node acknowledged.' },
    { name: 'Age', type: 'string', description: 'Time since the object was created.' },
  ],
  cells: (obj, now) => [obj.metadata.name ?? '', Object.keys(objectsOf(obj)).length, age(obj.metadata.creationTimestamp, now)],
};

const nodeSyncStrategy: ResourceStrategy = {
  validate(obj) {
    const causes: StatusCause[] = [];
    const objects = (obj as NodeSync).status?.objects;
    if (objects === undefined) return causes;
    if (typeof objects !== 'object' || objects === null || Array.isArray(objects)) {
      return [{ reason: 'FieldValueInvalid', message: 'must be a map of uid to object', field: 'status.objects' }];
    }
    for (const [uid, ref] of Object.entries(objects)) {
      const valid = typeof ref === 'object' && ref !== null && typeof ref.kind === 'string' && typeof ref.name === 'string';
      if (!valid) causes.push({ reason: 'FieldValueInvalid', message: 'needs kind and name', field: `status.objects[${uid}]` });
    }
    return causes;
  },
};

export const nodeSyncResource: ResourceDef = {
  group: NODESYNC_GROUP, version: 'v1', resource: 'nodesyncs', singular: 'nodesync', kind: 'NodeSync', namespaced: false,
  shortNames: ['nsync'], categories: [], subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
  printer: nodeSyncPrinter, strategy: nodeSyncStrategy,
};
