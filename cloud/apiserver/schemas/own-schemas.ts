import { gvkKey, QUANTITY, ref, schemaName, type GeneratedSchemas, type GroupVersionKind, type Schema } from './schema-generator.js';

/**
 * Schemas of the kinds client-node has no model for: kedge's own sync.kedge.io/v1 NodeSync
 * (shape: cloud/client/nodesync.ts) and metrics.k8s.io/v1beta1 (metrics-server's types).
 */

const meta = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const str = (description: string): Schema => ({ type: 'string', description });
const typeFields = {
  apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
  kind: str('Kind is a string value representing the REST resource this object represents.'),
};
const usage: Schema = { type: 'object', description: 'The memory and CPU usage.', additionalProperties: ref(QUANTITY) };

function kindSchemas(gvk: GroupVersionKind, description: string, properties: Record<string, Schema>): Record<string, Schema> {
  const name = schemaName(gvk);
  const list = { ...gvk, kind: `${gvk.kind}List` };
  return {
    [name]: { type: 'object', description, properties: { ...typeFields, metadata: ref(`${meta}.ObjectMeta`), ...properties }, 'x-kubernetes-group-version-kind': [gvk] },
    [`${name}List`]: {
      type: 'object',
      description: `${gvk.kind}List is a list of ${gvk.kind} objects.`,
      required: ['items'],
      properties: { ...typeFields, metadata: ref(`${meta}.ListMeta`), items: { type: 'array', items: ref(name) } },
      'x-kubernetes-group-version-kind': [list],
    },
  };
}

const nodeSync = { group: 'sync.kedge.io', version: 'v1', kind: 'NodeSync' };
const nodeMetrics = { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' };
const podMetrics = { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' };
const window = { timestamp: { type: 'string', format: 'date-time', description: 'The end of the window the usage was measured over.' }, window: str('The length of that window (a Go duration).') };

export function ownSchemas(): GeneratedSchemas {
  const schemas: Record<string, Schema> = {
    ...kindSchemas(nodeSync, 'NodeSync is the ledger of what one edge node acknowledged having received: one per node, named after it.', {
      status: {
        type: 'object',
        description: 'What the node acknowledged.',
        properties: {
          objects: {
            type: 'object',
            description: 'The acknowledged objects, by uid.',
            additionalProperties: {
              type: 'object',
              required: ['kind', 'name'],
              properties: { kind: str('The kind of the object.'), namespace: str('Its namespace.'), name: str('Its name.'), resourceVersion: str('The version the node has.') },
            },
          },
        },
      },
    }),
    ...kindSchemas(nodeMetrics, 'NodeMetrics sets resource usage metrics of a node.', { ...window, usage }),
    ...kindSchemas(podMetrics, 'PodMetrics sets resource usage metrics of a pod.', {
      ...window,
      containers: { type: 'array', description: 'Metrics for all containers are collected within the same time window.', items: { type: 'object', required: ['name', 'usage'], properties: { name: str('Container name.'), usage } } },
    }),
  };
  const kinds = [nodeSync, nodeMetrics, podMetrics].flatMap((gvk) => [gvk, { ...gvk, kind: `${gvk.kind}List` }]);
  return { schemas, kinds: Object.fromEntries(kinds.map((gvk) => [gvkKey(gvk), schemaName(gvk)])) };
}
