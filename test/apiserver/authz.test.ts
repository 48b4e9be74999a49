import { describe, expect, it } from 'vitest';
import { isKedgeError } from '../../shared/errors.js';
import type { KubeObject, Pod } from '../../shared/types.js';
import type { UserInfo } from '../../cloud/apiserver/auth/authn.js';
import { authorize, type AccessFacts, type Attributes } from '../../cloud/apiserver/auth/authz.js';

const user = (name: string, role: string, groups: string[] = []): UserInfo => ({ name, role, groups: [...groups, 'system:authenticated'] });
const admin = user('kedge-admin', 'admin', ['system:masters']);
const cloud = user('system:kedge-cloud', 'admin', ['system:masters']);
const viewer = user('kedge-viewer', 'viewer');
const node1 = user('system:node:edge-1', 'node', ['system:nodes']);
const nodeWithoutGroup = user('system:node:edge-1', 'node');
const nodeNamedOddly = user('edge-1', 'node', ['system:nodes']);
const odd = user('someone', 'whatever');

const named = ['get', 'update', 'patch', 'delete'];
const collection = ['list', 'watch', 'create', 'deletecollection'];
const statusVerbs = ['get', 'update', 'patch'];
const lease = { group: 'coordination.k8s.io', resource: 'leases', namespace: 'kube-node-lease' };
const podOn = (nodeName?: string): KubeObject => ({ kind: 'Pod', metadata: { name: 'p', namespace: 'default', uid: 'u1' }, spec: { containers: [], ...(nodeName ? { nodeName } : {}) } }) as KubeObject;
const leaseNamed = (name: string): KubeObject => ({ kind: 'Lease', metadata: { name } }) as KubeObject;
const nodeNamed = (name: string): KubeObject => ({ kind: 'Node', metadata: { name } }) as KubeObject;
/** An Event about `o` (reported by node `host`, when given). */
const eventAbout = (o: KubeObject, host?: string): KubeObject =>
  ({ kind: 'Event', metadata: { name: 'e', namespace: 'default' }, involvedObject: { kind: o.kind, ...o.metadata }, source: { component: 'kubelet', host } }) as KubeObject;

interface Target {
  label: string;
  attrs: Omit<Attributes, 'verb' | 'path'> & { path?: string };
  verbs: string[];
  /** What node edge-1 may do to it. */
  nodeMay: string[];
  stored?: KubeObject;
  submitted?: KubeObject;
  /** The pods bound to edge-1 (the Node authorizer's graph). */
  bound?: KubeObject[];
  /** Every stored pod, found by name (default: the bound ones). */
  pods?: KubeObject[];
}

const targets: Target[] = [
  { label: 'its own Node', attrs: { resource: 'nodes', name: 'edge-1' }, verbs: named, nodeMay: ['get', 'update', 'patch'] },
  { label: "another node's Node", attrs: { resource: 'nodes', name: 'edge-2' }, verbs: named, nodeMay: ['get'] },
  { label: 'all nodes', attrs: { resource: 'nodes' }, verbs: collection, nodeMay: ['list', 'watch'] },
  { label: 'nodes, registering itself', attrs: { resource: 'nodes' }, verbs: ['create'], nodeMay: ['create'], submitted: nodeNamed('edge-1') },
  { label: 'nodes, registering another node', attrs: { resource: 'nodes' }, verbs: ['create'], nodeMay: [], submitted: nodeNamed('edge-2') },
  { label: 'its own nodes/status', attrs: { resource: 'nodes', name: 'edge-1', subresource: 'status' }, verbs: statusVerbs, nodeMay: statusVerbs },
  { label: "another node's nodes/status", attrs: { resource: 'nodes', name: 'edge-2', subresource: 'status' }, verbs: statusVerbs, nodeMay: [] },
  { label: 'pods', attrs: { resource: 'pods', namespace: 'default' }, verbs: collection, nodeMay: ['list', 'watch'] },
  { label: 'pods in every namespace', attrs: { resource: 'pods' }, verbs: ['list', 'watch'], nodeMay: ['list', 'watch'] },
  { label: 'a pod bound to it', attrs: { resource: 'pods', namespace: 'default', name: 'p' }, verbs: named, nodeMay: ['get', 'delete'], stored: podOn('edge-1') },
  { label: 'a pod bound elsewhere', attrs: { resource: 'pods', namespace: 'default', name: 'p' }, verbs: named, nodeMay: ['get'], stored: podOn('edge-2') },
  { label: 'an unbound pod', attrs: { resource: 'pods', namespace: 'default', name: 'p' }, verbs: named, nodeMay: ['get'], stored: podOn() },
  { label: 'status of its own pod', attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'status' }, verbs: statusVerbs, nodeMay: statusVerbs, stored: podOn('edge-1') },
  { label: "status of another node's pod", attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'status' }, verbs: statusVerbs, nodeMay: ['get'], stored: podOn('edge-2') },
  { label: 'status of an unbound pod', attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'status' }, verbs: statusVerbs, nodeMay: ['get'], stored: podOn() },
  { label: 'status of a missing pod', attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'status' }, verbs: statusVerbs, nodeMay: ['get'] },
  { label: 'pods/binding', attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'binding' }, verbs: ['create'], nodeMay: [], stored: podOn('edge-1') },
  { label: 'pods/eviction', attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'eviction' }, verbs: ['create'], nodeMay: [], stored: podOn('edge-1') },
  { label: 'pods/log', attrs: { resource: 'pods', namespace: 'default', name: 'p', subresource: 'log' }, verbs: ['get'], nodeMay: [], stored: podOn('edge-1') },
  { label: 'its own Lease', attrs: { ...lease, name: 'edge-1' }, verbs: named, nodeMay: ['get', 'update'] },
  { label: "another node's Lease", attrs: { ...lease, name: 'edge-2' }, verbs: named, nodeMay: [] },
  { label: 'leases, creating its own', attrs: lease, verbs: ['create'], nodeMay: ['create'], submitted: leaseNamed('edge-1') },
  { label: "leases, creating another node's", attrs: lease, verbs: ['create'], nodeMay: [], submitted: leaseNamed('edge-2') },
  { label: 'leases, listing', attrs: lease, verbs: ['list', 'watch', 'deletecollection'], nodeMay: [] },
  { label: 'a Lease named after it elsewhere', attrs: { ...lease, namespace: 'default', name: 'edge-1' }, verbs: named, nodeMay: [] },
  { label: 'events, about nothing', attrs: { resource: 'events', namespace: 'default' }, verbs: collection, nodeMay: [] },
  { label: 'events, about its own Node', attrs: { resource: 'events', namespace: 'default' }, verbs: ['create'], nodeMay: ['create'], submitted: eventAbout(nodeNamed('edge-1')) },
  { label: "events, about its own Node, elsewhere than default", attrs: { resource: 'events', namespace: 'kube-system' }, verbs: ['create'], nodeMay: [], submitted: eventAbout(nodeNamed('edge-1')) },
  { label: "events, about another node's Node", attrs: { resource: 'events', namespace: 'default' }, verbs: ['create'], nodeMay: [], submitted: eventAbout(nodeNamed('edge-2')) },
  { label: 'events, about a pod bound to it', attrs: { resource: 'events', namespace: 'default' }, verbs: ['create'], nodeMay: ['create'], submitted: eventAbout(podOn('edge-1')), bound: [podOn('edge-1')] },
  { label: 'events, about a pod bound to it, by another uid', attrs: { resource: 'events', namespace: 'default' }, verbs: ['create'], nodeMay: [], submitted: eventAbout({ ...podOn('edge-1'), metadata: { name: 'p', namespace: 'default', uid: 'old' } }), bound: [podOn('edge-1')] },
  { label: 'events, about a pod bound elsewhere', attrs: { resource: 'events', namespace: 'default' }, verbs: ['create'], nodeMay: [], submitted: eventAbout(podOn('edge-2')), pods: [podOn('edge-2')] },
  { label: 'an event it reported about its pod', attrs: { resource: 'events', namespace: 'default', name: 'e' }, verbs: named, nodeMay: ['update', 'patch'], stored: eventAbout(podOn('edge-1'), 'edge-1'), bound: [podOn('edge-1')] },
  { label: 'an event another node reported about its pod', attrs: { resource: 'events', namespace: 'default', name: 'e' }, verbs: named, nodeMay: [], stored: eventAbout(podOn('edge-1'), 'edge-2'), bound: [podOn('edge-1')] },
  { label: 'an event it reported about its Node', attrs: { resource: 'events', namespace: 'default', name: 'e' }, verbs: named, nodeMay: ['update', 'patch'], stored: eventAbout(nodeNamed('edge-1'), 'edge-1') },
  { label: 'an event', attrs: { resource: 'events', namespace: 'default', name: 'e' }, verbs: named, nodeMay: [] },
  { label: 'services', attrs: { resource: 'services', namespace: 'default' }, verbs: collection, nodeMay: [] },
  { label: 'deployments', attrs: { group: 'apps', resource: 'deployments', namespace: 'default' }, verbs: collection, nodeMay: [] },
  { label: 'a deployment scale', attrs: { group: 'apps', resource: 'deployments', namespace: 'default', name: 'd', subresource: 'scale' }, verbs: statusVerbs, nodeMay: [] },
  { label: 'secrets', attrs: { resource: 'secrets', namespace: 'default' }, verbs: collection, nodeMay: [] },
  { label: 'secrets in every namespace', attrs: { resource: 'secrets' }, verbs: ['list', 'watch'], nodeMay: [] },
  { label: 'a secret', attrs: { resource: 'secrets', namespace: 'kube-system', name: 'bootstrap-token-abcdef' }, verbs: named, nodeMay: [] },
  { label: 'a namespace', attrs: { resource: 'namespaces', name: 'default' }, verbs: named, nodeMay: [] },
  { label: 'a non-resource path', attrs: { path: '/api' }, verbs: ['get', 'create'], nodeMay: ['get'] },
  { label: 'components', attrs: { path: '/kedge/v1/components/scheduler/stop' }, verbs: ['create'], nodeMay: [] },
];

const readVerbs = new Set(['get', 'list', 'watch']);
const roles: { label: string; user: UserInfo; may: (verb: string, t: Target) => boolean }[] = [
  { label: 'admin', user: admin, may: () => true },
  { label: "the cloud's own identity", user: cloud, may: () => true },
  { label: 'viewer', user: viewer, may: (verb, t) => readVerbs.has(verb) && t.attrs.resource !== 'secrets' },
  { label: 'node edge-1', user: node1, may: (verb, t) => t.nodeMay.includes(verb) },
  { label: 'a node user outside system:nodes', user: nodeWithoutGroup, may: () => false },
  { label: 'a node role without a system:node: name', user: nodeNamedOddly, may: () => false },
  { label: 'an unknown role', user: odd, may: () => false },
];

function factsOf(t: Target): AccessFacts & { fetched: number; listed: number } {
  const facts = {
    fetched: 0,
    listed: 0,
    stored: () => {
      facts.fetched++;
      return Promise.resolve(t.stored);
    },
    submitted: () => {
      facts.fetched++;
      return t.submitted ?? ({ metadata: {} } as KubeObject);
    },
    podsBoundTo: (node: string) => {
      facts.fetched++;
      facts.listed++;
      return Promise.resolve(node === 'edge-1' ? ((t.bound ?? []) as Pod[]) : []);
    },
    pod: (namespace: string, name: string) => {
      facts.fetched++;
      const found = ((t.pods ?? t.bound ?? []) as Pod[]).find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
      return Promise.resolve(found);
    },
  };
  return facts;
}

async function decision(u: UserInfo, verb: string, t: Target, facts: AccessFacts): Promise<boolean> {
  try {
    await authorize(u, { path: '/some/path', ...t.attrs, verb }, facts);
    return true;
  } catch (err) {
    if (!isKedgeError(err, 'Forbidden')) throw err;
    return false;
  }
}

describe('authorization: every role × verb × resource', () => {
  // One test per role: the lists of what it may and may not do, so a failure shows every wrong decision at once.
  it.each(roles.map((r) => [r.label, r] as const))('%s', async (_label, role) => {
    const actual: string[] = [];
    const expected: string[] = [];
    for (const t of targets) {
      for (const verb of t.verbs) {
        const line = (allowed: boolean): string => `${allowed ? 'may' : 'may not'} ${verb} ${t.label}`;
        actual.push(line(await decision(role.user, verb, t, factsOf(t))));
        expected.push(line(role.may(verb, t)));
      }
    }
    expect(actual).toEqual(expected);
  });

  it("a node's Events about pods read the one pod they name, never the namespace's pods", async () => {
    for (const t of targets.filter((x) => x.attrs.resource === 'events')) {
      const facts = factsOf(t);
      for (const verb of t.verbs) await decision(node1, verb, t, facts);
      expect([t.label, facts.listed]).toEqual([t.label, 0]);
    }
  });

  it('admin and viewer decisions never fetch the stored or submitted object', async () => {
    for (const u of [admin, viewer]) {
      for (const t of targets) {
        const facts = factsOf(t);
        for (const verb of t.verbs) await decision(u, verb, t, facts);
        expect([u.name, t.label, facts.fetched]).toEqual([u.name, t.label, 0]);
      }
    }
  });
});

describe('Forbidden messages name the user, verb and resource as kube does', () => {
  it('for a node writing the status of a pod bound elsewhere', async () => {
    const facts: AccessFacts = { stored: () => Promise.resolve(podOn('edge-2')), submitted: () => ({ metadata: {} }) as KubeObject };
    const attrs = { verb: 'patch', resource: 'pods', subresource: 'status', namespace: 'default', name: 'p', path: '/api/v1/namespaces/default/pods/p/status' };
    await expect(authorize(node1, attrs, facts)).rejects.toMatchObject({
      code: 'Forbidden',
      message: 'pods "p" is forbidden: User "system:node:edge-1" cannot patch resource "pods/status" in API group "" in the namespace "default"',
    });
  });

  it("for a node updating another node's Node, and for a viewer on a non-resource path", async () => {
    await expect(authorize(node1, { verb: 'update', resource: 'nodes', name: 'edge-2', path: '/api/v1/nodes/edge-2' })).rejects.toMatchObject({
      message: 'nodes "edge-2" is forbidden: User "system:node:edge-1" cannot update resource "nodes" in API group "" at the cluster scope',
    });
    await expect(authorize(viewer, { verb: 'create', path: '/kedge/v1/components/scheduler/stop' })).rejects.toMatchObject({
      message: 'forbidden: User "kedge-viewer" cannot create path "/kedge/v1/components/scheduler/stop"',
    });
  });
});
