import { describe, expect, it } from 'vitest';
import { ReferenceIndex, type ReferenceAction } from '../../cloud/hub/reference-index.js';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import type { ConfigMap, Secret } from '../../shared/config-types.js';
import type { Pod } from '../../shared/types.js';

/** A pod on `node` (none: unbound) referencing ConfigMaps by env and Secrets by volume. */
const pod = (uid: string, node: string | undefined, configMaps: string[], secrets: string[] = []): Pod => ({
  metadata: { namespace: 'default', name: `p-${uid}`, uid },
  spec: {
    ...(node ? { nodeName: node } : {}),
    containers: [{ name: 'c', env: configMaps.map((name) => ({ name: 'X', valueFrom: { configMapKeyRef: { name, key: 'k' } } })) }],
    volumes: secrets.map((secretName) => ({ name: secretName, secret: { secretName } })),
  },
});
const cm = (name: string, uid: string, rv = '1', namespace = 'default'): ConfigMap => ({ metadata: { namespace, name, uid, resourceVersion: rv }, data: { k: 'v' } });
const secret = (name: string, uid: string, rv = '1'): Secret => ({ metadata: { namespace: 'default', name, uid, resourceVersion: rv }, data: { k: 'dg==' } });

type Step =
  | ['pod', CacheEvent<Pod>['type'], Pod, Pod?]
  | ['ConfigMap', CacheEvent<ConfigMap>['type'], ConfigMap, ConfigMap?]
  | ['Secret', CacheEvent<Secret>['type'], Secret, Secret?];

const summary = (a: ReferenceAction): string => (a.type === 'want' ? `${a.node} want ${a.object.ref.kind}/${a.object.ref.name} ${a.object.ref.uid}@${a.object.ref.resourceVersion}` : `${a.node} unwant ${a.uid}`);

function event<T>(type: CacheEvent<T>['type'], object: T, old?: T): CacheEvent<T> {
  if (type === 'MODIFIED') return { type, object, old: old ?? object };
  return type === 'SYNCED' ? { type } : { type, object };
}

/** Runs the steps; returns what the last one planned. */
function run(steps: Step[]): { last: string[]; index: ReferenceIndex } {
  const index = new ReferenceIndex();
  let last: ReferenceAction[] = [];
  for (const [what, type, object, old] of steps) {
    last = what === 'pod' ? index.onPodEvent(event(type, object as Pod, old as Pod)) : index.onObjectEvent(what, event(type, object as ConfigMap, old as ConfigMap));
  }
  return { last: last.map(summary), index };
}

describe('ReferenceIndex [SYNC-18]', () => {
  it.each<{ name: string; steps: Step[]; last: string[]; size?: number }>([
    { name: 'a pod bound with its ConfigMap and Secret existing', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['Secret', 'ADDED', secret('pw', 's1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'], ['pw'])]], last: ['edge-1 want ConfigMap/cfg c1@1', 'edge-1 want Secret/pw s1@1'], size: 2 },
    { name: 'an unbound pod needs nothing', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', undefined, ['cfg'])]], last: [], size: 0 },
    { name: 'a pod created before its ConfigMap gets it once it exists', steps: [['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['ConfigMap', 'ADDED', cm('cfg', 'c1')]], last: ['edge-1 want ConfigMap/cfg c1@1'] },
    { name: 'a ConfigMap of the same name in another namespace is not it', steps: [['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['ConfigMap', 'ADDED', cm('cfg', 'c1', '1', 'other')]], last: [] },
    { name: 'an unreferenced ConfigMap goes nowhere', steps: [['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['ConfigMap', 'ADDED', cm('other', 'c9')]], last: [] },
    {
      name: 'a change fans out to every node needing it, once per node',
      steps: [['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['pod', 'ADDED', pod('p2', 'edge-1', ['cfg'])], ['pod', 'ADDED', pod('p3', 'edge-2', ['cfg'])], ['pod', 'ADDED', pod('p4', 'edge-3', [])], ['ConfigMap', 'ADDED', cm('cfg', 'c1', '5')], ['ConfigMap', 'MODIFIED', cm('cfg', 'c1', '6'), cm('cfg', 'c1', '5')]],
      last: ['edge-1 want ConfigMap/cfg c1@6', 'edge-2 want ConfigMap/cfg c1@6'],
      size: 1,
    },
    { name: 'deleted: every node needing it forgets its uid', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['pod', 'ADDED', pod('p2', 'edge-2', ['cfg'])], ['ConfigMap', 'DELETED', cm('cfg', 'c1')]], last: ['edge-1 unwant c1', 'edge-2 unwant c1'] },
    { name: 're-created under its name: the new uid is wanted', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['ConfigMap', 'DELETED', cm('cfg', 'c1')], ['ConfigMap', 'ADDED', cm('cfg', 'c2', '7')]], last: ['edge-1 want ConfigMap/cfg c2@7'] },
    { name: 'replaced in one event (a relist): old uid unwanted, new one wanted', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['ConfigMap', 'MODIFIED', cm('cfg', 'c2', '7'), cm('cfg', 'c1')]], last: ['edge-1 unwant c1', 'edge-1 want ConfigMap/cfg c2@7'] },
    { name: 'a late DELETED of an older life of the name changes nothing', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c2', '7')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['ConfigMap', 'DELETED', cm('cfg', 'c1')]], last: [], size: 1 },
    { name: 'the last referencing pod deleted: unwanted', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['pod', 'DELETED', pod('p1', 'edge-1', ['cfg'])]], last: ['edge-1 unwant c1'], size: 0 },
    { name: 'another pod on the node still references it: kept', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['pod', 'ADDED', pod('p2', 'edge-1', ['cfg'])], ['pod', 'DELETED', pod('p1', 'edge-1', ['cfg'])]], last: [], size: 1 },
    { name: 'a pod moved: the new node wants it, the old one not', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['pod', 'MODIFIED', pod('p1', 'edge-2', ['cfg']), pod('p1', 'edge-1', ['cfg'])]], last: ['edge-2 want ConfigMap/cfg c1@1', 'edge-1 unwant c1'] },
    {
      name: 'a spec change swaps one reference: only that one changes',
      steps: [['ConfigMap', 'ADDED', cm('a', 'ca')], ['ConfigMap', 'ADDED', cm('b', 'cb')], ['ConfigMap', 'ADDED', cm('c', 'cc')], ['pod', 'ADDED', pod('p1', 'edge-1', ['a', 'b'])], ['pod', 'MODIFIED', pod('p1', 'edge-1', ['b', 'c']), pod('p1', 'edge-1', ['a', 'b'])]],
      last: ['edge-1 want ConfigMap/c cc@1', 'edge-1 unwant ca'],
      size: 2,
    },
    { name: 'the same references again (a status change): nothing', steps: [['ConfigMap', 'ADDED', cm('cfg', 'c1')], ['pod', 'ADDED', pod('p1', 'edge-1', ['cfg'])], ['pod', 'MODIFIED', pod('p1', 'edge-1', ['cfg'])]], last: [] },
    { name: 'a ConfigMap and a Secret of one name are two objects', steps: [['ConfigMap', 'ADDED', cm('x', 'c1')], ['Secret', 'ADDED', secret('x', 's1')], ['pod', 'ADDED', pod('p1', 'edge-1', [], ['x'])]], last: ['edge-1 want Secret/x s1@1'] },
  ])('$name', ({ steps, last, size }) => {
    const result = run(steps);
    expect(result.last).toEqual(last);
    if (size !== undefined) expect(result.index.size).toBe(size);
  });
});
