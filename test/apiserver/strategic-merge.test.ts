import { describe, expect, it } from 'vitest';
import { applyPatch } from '../../cloud/apiserver/patch/patch.js';
import { patchStrategies } from '../../cloud/apiserver/patch/patch-strategies.js';
import { strategicMerge } from '../../cloud/apiserver/patch/strategic-merge.js';

const podSpec = (spec: unknown): unknown => ({ metadata: { name: 'p' }, spec });
const deploySpec = (podTemplateSpec: unknown, extra: object = {}): unknown => ({ metadata: { name: 'd' }, spec: { ...extra, template: { spec: podTemplateSpec } } });

/** Cases after apimachinery's strategicpatch testdata and the kubectl patch kubectl-api.md §4 records. */
const cases: { name: string; kind: string; original: unknown; patch: unknown; want: unknown }[] = [
  {
    name: 'a container patched by name keeps the other container and its own ports and env',
    kind: 'Deployment',
    original: deploySpec({ containers: [{ name: 'a', image: 'a:1', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] }),
    patch: deploySpec({ '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'a', image: 'a:2' }] }),
    want: deploySpec({ containers: [{ name: 'a', image: 'a:2', ports: [{ containerPort: 80 }], env: [{ name: 'X', value: '1' }] }, { name: 'b', image: 'b:1' }] }),
  },
  {
    name: 'kubectl\'s recorded patch: $patch delete of env, port and container; $retainKeys on the strategy',
    kind: 'Deployment',
    original: deploySpec(
      { containers: [{ name: 'a', env: [{ name: 'FOO', value: 'f' }, { name: 'BAR', value: 'b' }], ports: [{ containerPort: 80 }, { containerPort: 443 }] }, { name: 'b' }] },
      { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
    ),
    patch: deploySpec(
      {
        '$setElementOrder/containers': [{ name: 'a' }],
        containers: [
          { name: 'a', '$setElementOrder/env': [{ name: 'BAR' }], '$setElementOrder/ports': [{ containerPort: 80 }], env: [{ $patch: 'delete', name: 'FOO' }], ports: [{ $patch: 'delete', containerPort: 443 }] },
          { $patch: 'delete', name: 'b' },
        ],
      },
      { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } },
    ),
    want: deploySpec({ containers: [{ name: 'a', env: [{ name: 'BAR', value: 'b' }], ports: [{ containerPort: 80 }] }] }, { strategy: { type: 'Recreate' } }),
  },
  {
    name: '$retainKeys drops the keys of the original it does not list',
    kind: 'Pod',
    original: podSpec({ volumes: [{ name: 'v', hostPath: { path: '/x' } }] }),
    patch: podSpec({ volumes: [{ name: 'v', $retainKeys: ['name', 'emptyDir'], emptyDir: {} }] }),
    want: podSpec({ volumes: [{ name: 'v', emptyDir: {} }] }),
  },
  {
    name: 'a list without a strategy (tolerations) is replaced',
    kind: 'Pod',
    original: podSpec({ tolerations: [{ key: 'a' }, { key: 'b' }] }),
    patch: podSpec({ tolerations: [{ key: 'c' }] }),
    want: podSpec({ tolerations: [{ key: 'c' }] }),
  },
  {
    name: '$patch: replace on a merged list replaces it',
    kind: 'Pod',
    original: podSpec({ containers: [{ name: 'a' }, { name: 'b' }] }),
    patch: podSpec({ containers: [{ name: 'c' }, { $patch: 'replace' }] }),
    want: podSpec({ containers: [{ name: 'c' }] }),
  },
  {
    name: '$patch: replace on a map replaces it; $patch: delete removes it',
    kind: 'Pod',
    original: { metadata: { name: 'p', labels: { a: '1', b: '2' }, annotations: { x: 'y' } } },
    patch: { metadata: { labels: { $patch: 'replace', c: '3' }, annotations: { $patch: 'delete' } } },
    want: { metadata: { name: 'p', labels: { c: '3' } } },
  },
  {
    name: 'finalizers merge as a set; $deleteFromPrimitiveList removes; null deletes a key',
    kind: 'ConfigMap',
    original: { metadata: { name: 'c', finalizers: ['a', 'b'], labels: { x: '1', y: '2' } } },
    patch: { metadata: { finalizers: ['c', 'a'], '$deleteFromPrimitiveList/finalizers': ['b'], labels: { y: null } } },
    want: { metadata: { name: 'c', finalizers: ['a', 'c'], labels: { x: '1' } } },
  },
  {
    name: 'status conditions merge by type; node addresses by type',
    kind: 'Node',
    original: { metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'DiskPressure', status: 'False' }], addresses: [{ type: 'InternalIP', address: '1' }] } },
    patch: { status: { conditions: [{ type: 'Ready', status: 'Unknown' }], addresses: [{ type: 'Hostname', address: 'n' }] } },
    want: { metadata: { name: 'n' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }, { type: 'DiskPressure', status: 'False' }], addresses: [{ type: 'InternalIP', address: '1' }, { type: 'Hostname', address: 'n' }] } },
  },
  {
    name: 'service ports merge by port',
    kind: 'Service',
    original: { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] } },
    patch: { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
    want: { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: 9090 }, { port: 443 }] } },
  },
  {
    name: '$setElementOrder orders the patched elements and keeps server-only ones in place',
    kind: 'Pod',
    original: podSpec({ containers: [{ name: 'a' }, { name: 'sidecar' }, { name: 'b' }] }),
    patch: podSpec({ '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }, { name: 'c' }], containers: [{ name: 'c' }] }),
    want: podSpec({ containers: [{ name: 'a' }, { name: 'sidecar' }, { name: 'b' }, { name: 'c' }] }),
  },
  {
    name: '$setElementOrder alone reorders the stored list',
    kind: 'Pod',
    original: podSpec({ containers: [{ name: 'a' }, { name: 'b' }] }),
    patch: podSpec({ '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] }),
    want: podSpec({ containers: [{ name: 'b' }, { name: 'a' }] }),
  },
  {
    name: 'new elements and maps lose their nulls and directives',
    kind: 'Pod',
    original: podSpec({ containers: [{ name: 'a' }] }),
    patch: podSpec({ containers: [{ name: 'b', image: null, '$setElementOrder/env': [{ name: 'E' }], env: [{ name: 'E', value: 'v' }] }] }),
    want: podSpec({ containers: [{ name: 'a' }, { name: 'b', env: [{ name: 'E', value: 'v' }] }] }),
  },
];

describe('strategic merge patch', () => {
  it.each(cases)('$name', ({ kind, original, patch, want }) => {
    const frozen = structuredClone(original);
    expect(strategicMerge(original, patch, patchStrategies[kind]!)).toEqual(want);
    expect(original).toEqual(frozen);
  });

  it('refuses a merged element without its merge key and an unknown $patch', () => {
    expect(() => strategicMerge({}, podSpec({ containers: [{ image: 'x' }] }), patchStrategies.Pod!)).toThrow(/does not contain declared merge key: name/);
    expect(() => strategicMerge({}, { metadata: { $patch: 'squash' } }, patchStrategies.Pod!)).toThrow(/unknown patch type/);
  });

  it('patches a kind without a schema as a JSON merge patch without directives', () => {
    const original = { metadata: { name: 'w' }, spec: { items: [{ name: 'a', v: 1 }] } };
    const patch = { spec: { '$setElementOrder/items': [{ name: 'a' }], items: [{ name: 'a', v: 2 }] } };
    expect(applyPatch('strategic', original, patch, 'Widget')).toEqual({ metadata: { name: 'w' }, spec: { items: [{ name: 'a', v: 2 }] } });
  });
});
