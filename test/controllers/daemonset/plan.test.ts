import { describe, expect, it } from 'vitest';
import { planDaemonSet, type DaemonSetAction, type DaemonSetPlanInput } from '../../../cloud/controllers/daemonset/plan.js';
import type { DaemonSet } from '../../../shared/daemonset-types.js';
import type { Node, Pod } from '../../../shared/types.js';
import { daemonPodOn, ds, hashOf, node, revisionOf, T0 } from './fixtures.js';

const v1 = ds();
const rev1 = revisionOf(v1, 1);
const h1 = hashOf(rev1);
const NOW = T0 + 100_000;

const plan = (input: Partial<DaemonSetPlanInput> & { nodes: Node[]; pods: Pod[] }): DaemonSetAction[] =>
  planDaemonSet({ ds: v1, revisions: [rev1], expectationsSatisfied: true, now: NOW, timing: { timeScale: 1 }, ...input });

/** The create/delete decisions: "create <node>" per pod, "delete <pod>". */
function decisions(actions: DaemonSetAction[]): string[] {
  return actions.flatMap((a) => {
    if (a.type === 'create') return a.pods.map((p) => `create ${p.spec.affinity && JSON.stringify(p.spec.affinity).match(/"values":\["([^"]+)"\]/)![1]}`);
    if (a.type === 'delete') return a.pods.map((p) => `delete ${p.metadata.name}`);
    return [];
  });
}

const ready = (n: string, name = `agent-${n}`, extra: Partial<Parameters<typeof daemonPodOn>[2]> = {}): Pod => daemonPodOn(n, name, { hash: h1, readyAt: 0, ...extra });
const unreachable = [
  { key: 'node.kubernetes.io/unreachable', effect: 'NoExecute' as const },
  { key: 'node.kubernetes.io/unreachable', effect: 'NoSchedule' as const },
];

describe('planDaemonSet: where daemon pods belong', () => {
  const cases: { name: string; ds?: DaemonSet; nodes: Node[]; pods: Pod[]; want: string[] }[] = [
    { name: 'one pod on every node', nodes: [node('a'), node('b')], pods: [], want: ['create a', 'create b'] },
    { name: 'nothing to do when every node has its pod', nodes: [node('a'), node('b')], pods: [ready('a'), ready('b')], want: [] },
    {
      name: 'only nodes matching the nodeSelector',
      ds: ds({ template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { zone: 'edge' }, containers: [{ name: 'agent', image: 'agent:1' }] } } }),
      nodes: [node('a', { labels: { zone: 'edge' } }), node('b', { labels: { zone: 'core' } })], pods: [], want: ['create a'],
    },
    {
      name: 'only nodes matching the required node affinity',
      ds: ds({
        template: {
          metadata: { labels: { app: 'agent' } },
          spec: {
            affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'gpu', operator: 'Exists' }] }] } } },
            containers: [{ name: 'agent', image: 'agent:1' }],
          },
        },
      }),
      nodes: [node('a'), node('b', { labels: { gpu: 'yes' } })], pods: [], want: ['create b'],
    },
    { name: 'not on a node with an untolerated NoSchedule taint', nodes: [node('a', { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] })], pods: [], want: [] },
    { name: 'but a pod already there may stay', nodes: [node('a', { taints: [{ key: 'dedicated', effect: 'NoSchedule' }] })], pods: [ready('a')], want: [] },
    { name: 'an untolerated NoExecute taint removes the pod', nodes: [node('a', { taints: [{ key: 'dedicated', effect: 'NoExecute' }] })], pods: [ready('a')], want: ['delete agent-a'] },
    { name: 'a node that no longer matches loses its pod', ds: ds({ template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { zone: 'edge' }, containers: [{ name: 'agent', image: 'agent:1' }] } } }), nodes: [node('a')], pods: [ready('a')], want: ['delete agent-a'] },
    { name: 'an unreachable node keeps its pod (the daemon tolerations)', nodes: [node('a', { taints: unreachable })], pods: [ready('a')], want: [] },
    { name: 'an unreachable node gets no new pod (its NoSchedule taint)', nodes: [node('a', { taints: unreachable })], pods: [], want: [] },
    {
      name: 'pressure, not-ready and unschedulable taints are tolerated',
      nodes: [node('a', { taints: [{ key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/not-ready', effect: 'NoExecute' }] })],
      pods: [], want: ['create a'],
    },
    { name: 'network-unavailable only with hostNetwork', nodes: [node('a', { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] })], pods: [], want: [] },
    { name: 'two pods on a node: the newer goes', nodes: [node('a')], pods: [ready('a', 'old', { createdAt: 1 }), ready('a', 'young', { createdAt: 5 })], want: ['delete young'] },
    { name: 'a failed pod is deleted (and replaced on a later pass)', nodes: [node('a')], pods: [ready('a', 'agent-a', { phase: 'Failed' })], want: ['delete agent-a'] },
    { name: 'no new pod while the old one terminates', nodes: [node('a')], pods: [ready('a', 'agent-a', { deleting: true })], want: [] },
    { name: 'a pod pinned but not yet bound counts for its node', nodes: [node('a')], pods: [ready('a', 'agent-a', { bound: false })], want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = c.ds ?? v1;
      expect(decisions(plan({ ds: d, revisions: [revisionOf(d, 1)], nodes: c.nodes, pods: c.pods }))).toEqual(c.want);
    });
  }

  it('tolerates network-unavailable with hostNetwork', () => {
    const d = ds({ template: { metadata: { labels: { app: 'agent' } }, spec: { hostNetwork: true, containers: [{ name: 'agent', image: 'agent:1' }] } } });
    const n = node('a', { taints: [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }] });
    expect(decisions(plan({ ds: d, revisions: [revisionOf(d, 1)], nodes: [n], pods: [] }))).toEqual(['create a']);
  });

  it('creates pods pinned by matchFields, with the daemon tolerations, revision labels and a controller reference', () => {
    const d = ds({
      template: {
        metadata: { labels: { app: 'agent' } },
        spec: { tolerations: [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }], containers: [{ name: 'agent', image: 'agent:1' }] },
      },
    });
    const create = plan({ ds: d, revisions: [revisionOf(d, 1)], nodes: [node('edge-1')], pods: [] }).find((a) => a.type === 'create');
    const pod = create?.type === 'create' ? create.pods[0]! : undefined;
    expect(pod?.metadata).toMatchObject({
      generateName: 'agent-',
      labels: { app: 'agent', 'controller-revision-hash': hashOf(revisionOf(d, 1)), 'pod-template-generation': '1' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'uid-agent', controller: true, blockOwnerDeletion: true }],
    });
    expect(pod?.spec.nodeName).toBeUndefined();
    expect(pod?.spec.affinity).toEqual({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['edge-1'] }] }] } } });
    // The template's unreachable toleration with seconds is replaced: none of the daemon tolerations has seconds.
    expect(pod?.spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
  });

  it('deletes a failed pod only once its node is out of backoff, and says so', () => {
    const failed = [ready('a', 'agent-a', { phase: 'Failed' })];
    const now = plan({ nodes: [node('a')], pods: failed, failedBackoffMs: () => undefined });
    expect(now.filter((a) => a.type === 'delete' || a.type === 'failedPodBackoff').map((a) => a.type)).toEqual(['delete', 'failedPodBackoff']);
    const later = plan({ nodes: [node('a')], pods: failed, failedBackoffMs: (n) => (n === 'a' ? 4_000 : undefined) });
    expect(decisions(later)).toEqual([]);
    expect(later).toContainEqual({ type: 'requeueAfter', ms: 4_000 });
  });

  it('while earlier writes are unseen, only reports status', () => {
    const actions = plan({ nodes: [node('a')], pods: [], expectationsSatisfied: false });
    expect(actions.map((a) => a.type)).toEqual(['status']);
  });
});

describe('planDaemonSet: updates', () => {
  const v2 = ds({}, 'agent:2', 2);
  const rev2 = revisionOf(v2, 2);
  const h2 = hashOf(rev2);
  const old = (n: string, extra: Partial<Parameters<typeof daemonPodOn>[2]> = {}): Pod => daemonPodOn(n, `old-${n}`, { hash: h1, readyAt: 0, ...extra });
  const fresh = (n: string, extra: Partial<Parameters<typeof daemonPodOn>[2]> = {}): Pod => daemonPodOn(n, `new-${n}`, { hash: h2, readyAt: 0, ...extra });
  const three = [node('a'), node('b'), node('c')];
  const rolling = (d: DaemonSet, pods: Pod[], nodes = three): string[] => decisions(plan({ ds: d, revisions: [rev1, revisionOf(d, 2)], nodes, pods }));

  const cases: { name: string; ds?: DaemonSet; pods: Pod[]; want: string[] }[] = [
    { name: 'maxUnavailable 1: one old pod at a time', pods: [old('a'), old('b'), old('c')], want: ['delete old-a'] },
    { name: 'the freed node gets its new pod from the manage loop', pods: [old('b'), old('c')], want: ['create a'] },
    { name: 'waits while the new pod is not yet available', pods: [fresh('a', { readyAt: undefined }), old('b'), old('c')], want: [] },
    { name: 'moves on once it is', pods: [fresh('a'), old('b'), old('c')], want: ['delete old-b'] },
    { name: 'an unavailable old pod is replaced whatever the budget', pods: [fresh('a', { readyAt: undefined }), old('b', { readyAt: undefined }), old('c')], want: ['delete old-b'] },
    { name: 'maxUnavailable 2 takes two at a time', ds: ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2, maxSurge: 0 } } }, 'agent:2', 2), pods: [old('a'), old('b'), old('c')], want: ['delete old-a', 'delete old-b'] },
    { name: "maxUnavailable '50%' of 3 rounds up to 2", ds: ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '50%', maxSurge: 0 } } }, 'agent:2', 2), pods: [old('a'), old('b'), old('c')], want: ['delete old-a', 'delete old-b'] },
    { name: 'OnDelete leaves old pods alone', ds: ds({ updateStrategy: { type: 'OnDelete' } }, 'agent:2', 2), pods: [old('a'), old('b'), old('c')], want: [] },
    { name: 'OnDelete replaces a deleted pod with the new template', ds: ds({ updateStrategy: { type: 'OnDelete' } }, 'agent:2', 2), pods: [old('b'), old('c')], want: ['create a'] },
    { name: 'maxSurge 1: a new pod beside an old one', ds: ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }, 'agent:2', 2), pods: [old('a'), old('b'), old('c')], want: ['create a'] },
    { name: 'maxSurge: the old pod goes once the new one is available', ds: ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }, 'agent:2', 2), pods: [old('a'), fresh('a'), old('b'), old('c')], want: ['delete old-a'] },
    { name: 'maxSurge: both stay while the new one is not available', ds: ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }, 'agent:2', 2), pods: [old('a'), fresh('a', { readyAt: undefined }), old('b'), old('c')], want: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = c.ds ?? v2;
      const pods = c.pods.map((p) => (p.metadata.labels!['controller-revision-hash'] === h2 ? { ...p, metadata: { ...p.metadata, labels: { ...p.metadata.labels, 'controller-revision-hash': hashOf(revisionOf(d, 2)) } } } : p));
      expect(rolling(d, pods)).toEqual(c.want);
    });
  }

  it('new pods carry the new revision hash', () => {
    const create = plan({ ds: v2, revisions: [rev1, rev2], nodes: three, pods: [old('b'), old('c')] }).find((a) => a.type === 'create');
    expect(create?.type === 'create' && create.pods[0]!.metadata.labels).toMatchObject({ 'controller-revision-hash': h2, 'pod-template-generation': '2' });
  });
});

describe('planDaemonSet: revisions and status', () => {
  const v2 = ds({}, 'agent:2', 2);

  it('snapshots a new template as revision max+1, named <ds>-<hash>', () => {
    const actions = plan({ ds: v2, revisions: [rev1], nodes: [], pods: [] });
    const created = actions.find((a) => a.type === 'createRevision');
    expect(created?.type === 'createRevision' && created.revision).toMatchObject({
      metadata: { name: `agent-${hashOf(revisionOf(v2, 2))}`, labels: { app: 'agent', 'controller-revision-hash': hashOf(revisionOf(v2, 2)) } },
      revision: 2,
      data: { spec: { template: { $patch: 'replace', spec: { containers: [{ image: 'agent:2' }] } } } },
    });
  });

  it('cuts a long DaemonSet name to 223 characters in the revision name', () => {
    const long = { ...v2, metadata: { ...v2.metadata, name: 'd'.repeat(250) } };
    const created = plan({ ds: long, revisions: [], nodes: [], pods: [] }).find((a) => a.type === 'createRevision');
    expect(created?.type === 'createRevision' && created.revision.metadata.name).toMatch(new RegExp(`^d{223}-${hashOf(revisionOf(v2, 2))}$`));
  });

  it('a rollback to an older template renumbers its revision instead of making a new one', () => {
    const rev2 = revisionOf(v2, 2);
    const back = ds({}, 'agent:1', 3);
    const actions = plan({ ds: back, revisions: [rev1, rev2], nodes: [], pods: [] });
    expect(actions.filter((a) => a.type.endsWith('Revision'))).toEqual([{ type: 'renumberRevision', revision: rev1, to: 3 }]);
  });

  it('keeps revisionHistoryLimit old revisions, and any a live pod is at', () => {
    const revs = [1, 2, 3, 4].map((n) => revisionOf(ds({}, `agent:${n}`), n));
    const d = ds({ revisionHistoryLimit: 2 }, 'agent:4');
    const pods = [daemonPodOn('a', 'p', { hash: hashOf(revs[0]!), readyAt: 0 })];
    const deleted = plan({ ds: d, revisions: revs, nodes: [node('a')], pods }).flatMap((a) => (a.type === 'deleteRevision' ? [a.revision.revision] : []));
    expect(deleted).toEqual([2]);
  });

  it('counts desired, current, ready, available, up-to-date and misscheduled nodes', () => {
    const d = ds({ minReadySeconds: 30, template: { metadata: { labels: { app: 'agent' } }, spec: { nodeSelector: { zone: 'edge' }, containers: [{ name: 'agent', image: 'agent:1' }] } } });
    const edge = { labels: { zone: 'edge' } };
    const nodes = [node('a', edge), node('b', edge), node('c', edge), node('d', edge), node('x')];
    const h = hashOf(revisionOf(d, 1));
    const pods = [
      daemonPodOn('a', 'pa', { hash: h, readyAt: 0 }),
      daemonPodOn('b', 'pb', { hash: h, readyAt: 90 }), // ready 10 s ago: not yet available
      daemonPodOn('c', 'pc', { hash: 'older' }),
      daemonPodOn('x', 'px', { hash: h, readyAt: 0 }),
    ];
    const actions = plan({ ds: d, revisions: [revisionOf(d, 1)], nodes, pods });
    expect(actions.find((a) => a.type === 'status')).toEqual({
      type: 'status',
      status: { desiredNumberScheduled: 4, currentNumberScheduled: 3, numberReady: 2, numberAvailable: 1, updatedNumberScheduled: 2, numberMisscheduled: 1, numberUnavailable: 3, observedGeneration: 1 },
    });
    expect(actions).toContainEqual({ type: 'requeueAfter', ms: 20_000 });
  });
});
