import { describe, expect, it } from 'vitest';
import type { CacheEvent } from '../../cloud/informer/informer.js';
import { actionLine, cacheEvent } from '../support/plan-steps.js';
import type { ReferenceAction } from '../../cloud/hub/reference-index.js';
import { ServiceIndex } from '../../cloud/hub/service-index.js';
import type { Endpoints, Service, ServiceSpec } from '../../shared/service-types.js';
import type { Node, Pod } from '../../shared/types.js';

const pod = (uid: string, node: string | undefined, namespace = 'shop'): Pod => ({ metadata: { namespace, name: `p-${uid}`, uid }, spec: { ...(node ? { nodeName: node } : {}), containers: [] } });
const svc = (name: string, uid: string, spec: ServiceSpec = {}, rv = '1', namespace = 'shop'): Service => ({ metadata: { namespace, name, uid, resourceVersion: rv }, spec: { clusterIP: '10.96.0.9', ports: [{ port: 80 }], ...spec } });
const eps = (name: string, uid: string, rv = '1', namespace = 'shop'): Endpoints => ({ metadata: { namespace, name, uid, resourceVersion: rv }, subsets: [{ addresses: [{ ip: '127.64.1.2' }], ports: [{ port: 8080 }] }] });
const node = (name: string): Node => ({ metadata: { name, uid: `n-${name}` } });
const nodePort: ServiceSpec = { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] };

type Step = ['pod', CacheEvent<Pod>['type'], Pod, Pod?] | ['Service', CacheEvent<Service>['type'], Service, Service?] | ['Endpoints', CacheEvent<Endpoints>['type'], Endpoints] | ['node', 'ADDED' | 'DELETED', Node];

/** Three Nodes, then the steps; what the last step planned. */
function run(steps: Step[]): string[] {
  const index = new ServiceIndex();
  for (const n of ['edge-1', 'edge-2', 'edge-3']) index.onNodeEvent(cacheEvent('ADDED', node(n)));
  let last: ReferenceAction[] = [];
  for (const [what, type, object, old] of steps) {
    if (what === 'pod') last = index.onPodEvent(cacheEvent(type, object as Pod, old as Pod));
    else if (what === 'node') last = index.onNodeEvent(cacheEvent(type, object as Node));
    else last = index.onObjectEvent(what, cacheEvent(type, object as Service, old as Service));
  }
  return last.map(actionLine);
}

const podOn1: Step = ['pod', 'ADDED', pod('p1', 'edge-1')];
const web: Step = ['Service', 'ADDED', svc('web', 's1')];
const webEps: Step = ['Endpoints', 'ADDED', eps('web', 'e1')];

describe('ServiceIndex: which nodes hold which Services and Endpoints [SYNC-19]', () => {
  it.each<{ name: string; steps: Step[]; last: string[] }>([
    { name: 'a ClusterIP Service reaches the nodes running a pod of its namespace', steps: [podOn1, ['pod', 'ADDED', pod('p2', 'edge-2', 'other')], web], last: ['edge-1 want Service/web s1@1'] },
    { name: 'its Endpoints too', steps: [podOn1, web, webEps], last: ['edge-1 want Endpoints/web e1@1'] },
    { name: 'Endpoints without a Service of their name reach nobody', steps: [podOn1, webEps], last: [] },
    { name: 'the Service coming after its Endpoints brings them', steps: [podOn1, webEps, web], last: ['edge-1 want Service/web s1@1', 'edge-1 want Endpoints/web e1@1'] },
    { name: 'the first pod of the namespace on a node brings its Services and Endpoints', steps: [web, webEps, ['pod', 'ADDED', pod('p2', 'edge-2')]], last: ['edge-2 want Service/web s1@1', 'edge-2 want Endpoints/web e1@1'] },
    { name: 'a second pod of the namespace there: nothing more', steps: [podOn1, web, ['pod', 'ADDED', pod('p2', 'edge-1')]], last: [] },
    { name: 'an unbound pod brings nothing', steps: [web, ['pod', 'ADDED', pod('p2', undefined)]], last: [] },
    { name: 'the last pod of the namespace leaving a node: unwanted', steps: [podOn1, web, webEps, ['pod', 'DELETED', pod('p1', 'edge-1')]], last: ['edge-1 unwant s1', 'edge-1 unwant e1'] },
    { name: 'one of two pods leaving: kept', steps: [podOn1, ['pod', 'ADDED', pod('p2', 'edge-1')], web, ['pod', 'DELETED', pod('p1', 'edge-1')]], last: [] },
    { name: 'a pod moved: the new node wants, the old one not', steps: [podOn1, web, ['pod', 'MODIFIED', pod('p1', 'edge-2'), pod('p1', 'edge-1')]], last: ['edge-2 want Service/web s1@1', 'edge-1 unwant s1'] },
    { name: 'a status change of a pod: nothing', steps: [podOn1, web, ['pod', 'MODIFIED', pod('p1', 'edge-1')]], last: [] },
    { name: 'an Endpoints change reaches the nodes of its Service, only', steps: [podOn1, ['pod', 'ADDED', pod('p2', 'edge-2')], web, webEps, ['Endpoints', 'MODIFIED', eps('web', 'e1', '5')]], last: ['edge-1 want Endpoints/web e1@5', 'edge-2 want Endpoints/web e1@5'] },
    { name: 'a NodePort Service reaches every node', steps: [podOn1, ['Service', 'ADDED', svc('np', 's2', nodePort)]], last: ['edge-1 want Service/np s2@1', 'edge-2 want Service/np s2@1', 'edge-3 want Service/np s2@1'] },
    { name: 'a LoadBalancer Service too', steps: [['Service', 'ADDED', svc('lb', 's3', { type: 'LoadBalancer' })]], last: ['edge-1 want Service/lb s3@1', 'edge-2 want Service/lb s3@1', 'edge-3 want Service/lb s3@1'] },
    { name: 'default/kubernetes reaches every node', steps: [['Service', 'ADDED', svc('kubernetes', 'k1', {}, '1', 'default')]], last: ['edge-1 want Service/kubernetes k1@1', 'edge-2 want Service/kubernetes k1@1', 'edge-3 want Service/kubernetes k1@1'] },
    { name: 'and its Endpoints, even before the Service', steps: [['Endpoints', 'ADDED', eps('kubernetes', 'ke', '1', 'default')]], last: ['edge-1 want Endpoints/kubernetes ke@1', 'edge-2 want Endpoints/kubernetes ke@1', 'edge-3 want Endpoints/kubernetes ke@1'] },
    { name: 'a headless Service reaches nobody', steps: [podOn1, ['Service', 'ADDED', svc('db', 's4', { clusterIP: 'None' })]], last: [] },
    { name: 'an ExternalName Service reaches nobody', steps: [podOn1, ['Service', 'ADDED', svc('ext', 's5', { type: 'ExternalName', externalName: 'example.com', clusterIP: '' })]], last: [] },
    {
      name: 'ClusterIP → NodePort: the nodes without a pod of the namespace get the Service and its Endpoints',
      steps: [podOn1, web, webEps, ['Service', 'MODIFIED', svc('web', 's1', nodePort, '2'), svc('web', 's1')]],
      last: ['edge-1 want Service/web s1@2', 'edge-2 want Service/web s1@2', 'edge-3 want Service/web s1@2', 'edge-2 want Endpoints/web e1@1', 'edge-3 want Endpoints/web e1@1'],
    },
    {
      name: 'NodePort → ClusterIP: only the nodes with a pod of the namespace keep them',
      steps: [podOn1, ['Service', 'ADDED', svc('web', 's1', nodePort)], webEps, ['Service', 'MODIFIED', svc('web', 's1', {}, '3'), svc('web', 's1', nodePort)]],
      last: ['edge-2 unwant s1', 'edge-3 unwant s1', 'edge-1 want Service/web s1@3', 'edge-2 unwant e1', 'edge-3 unwant e1'],
    },
    { name: 'ClusterIP → ExternalName: unwanted, Endpoints too', steps: [podOn1, web, webEps, ['Service', 'MODIFIED', svc('web', 's1', { type: 'ExternalName', clusterIP: '' }, '4')]], last: ['edge-1 unwant s1', 'edge-1 unwant e1'] },
    { name: 'a Service deleted: its nodes forget it and its Endpoints', steps: [podOn1, web, webEps, ['Service', 'DELETED', svc('web', 's1')]], last: ['edge-1 unwant s1', 'edge-1 unwant e1'] },
    { name: 'Endpoints deleted: only they go', steps: [podOn1, web, webEps, ['Endpoints', 'DELETED', eps('web', 'e1')]], last: ['edge-1 unwant e1'] },
    { name: 're-created under its name in one event: old uid unwanted, new one wanted', steps: [podOn1, web, ['Service', 'MODIFIED', svc('web', 's9', {}, '8'), svc('web', 's1')]], last: ['edge-1 unwant s1', 'edge-1 want Service/web s9@8'] },
    { name: 'a late DELETED of an older life of the name changes nothing', steps: [podOn1, ['Service', 'ADDED', svc('web', 's9', {}, '8')], ['Service', 'DELETED', svc('web', 's1')]], last: [] },
    { name: 'a Node added gets what every node holds, not ClusterIP ones', steps: [web, ['Service', 'ADDED', svc('np', 's2', nodePort)], ['node', 'ADDED', node('edge-4')]], last: ['edge-4 want Service/np s2@1'] },
    { name: 'a Node deleted forgets it', steps: [['Service', 'ADDED', svc('np', 's2', nodePort)], ['node', 'DELETED', node('edge-3')]], last: ['edge-3 unwant s2'] },
  ])('$name', ({ steps, last }) => {
    expect(run(steps)).toEqual(last);
  });

  it('a pod event plans nothing but for the first or last pod of its namespace on its node', () => {
    const index = new ServiceIndex();
    for (let i = 0; i < 1000; i++) index.onObjectEvent('Service', cacheEvent('ADDED', svc(`s${i}`, `u${i}`)));
    expect(index.onPodEvent(cacheEvent('ADDED', pod('p1', 'edge-1')))).toHaveLength(1000);
    expect(index.onPodEvent(cacheEvent('ADDED', pod('p2', 'edge-1')))).toEqual([]);
    expect(index.onPodEvent(cacheEvent('DELETED', pod('p1', 'edge-1')))).toEqual([]);
    expect(index.onPodEvent(cacheEvent('DELETED', pod('p2', 'edge-1')))).toHaveLength(1000);
  });

  it('sends a trimmed Service: no managedFields, annotations or other metadata', () => {
    const index = new ServiceIndex();
    index.onPodEvent(cacheEvent('ADDED', pod('p1', 'edge-1')));
    const full: Service = { ...svc('web', 's1'), metadata: { ...svc('web', 's1').metadata, labels: { app: 'web' }, annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{…}' }, creationTimestamp: 'x' } };
    const [want] = index.onObjectEvent('Service', cacheEvent('ADDED', full));
    expect(want?.type === 'want' && want.object.object).toEqual({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'shop', name: 'web', uid: 's1', resourceVersion: '1', labels: { app: 'web' } }, spec: full.spec });
  });
});
