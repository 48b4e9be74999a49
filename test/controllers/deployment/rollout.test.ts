import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../cloud/client/client.js';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { deploymentController } from '../../../cloud/controllers/deployment/index.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { replicaSetController } from '../../../cloud/controllers/replicaset/index.js';
import type { Deployment, ReplicaSet } from '../../../shared/apps-types.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Pod } from '../../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../../support/api-fixture.js';
import { runUntil } from '../../support/settle.js';
import { fakeKubelet } from './fake-kubelet.js';
import { withInformers } from '../../support/controller-context.js';

const deployRef = { resource: 'deployments', group: 'apps', namespace: 'default', name: 'web' };

function webDeployment(replicas: number): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { runtimeClassName: 'sim', containers: [{ name: 'app', image: 'kedge.io/hello:1.0' }] } },
    },
  };
}

describe('Deployment and ReplicaSet controllers with the apiserver', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let running: RunningController[];
  let kubelet: ReturnType<typeof fakeKubelet>;
  let events: ReturnType<typeof memoryEventRecorder>;

  const pods = async (): Promise<Pod[]> => (await api.list<Pod>({ resource: 'pods', namespace: 'default' })).items;
  const replicaSets = async (): Promise<ReplicaSet[]> => (await api.list<ReplicaSet>({ resource: 'replicasets', group: 'apps', namespace: 'default' })).items;
  const deployment = (): Promise<Deployment> => api.get<Deployment>(deployRef);
  const readyPods = async (): Promise<Pod[]> => (await pods()).filter((p) => p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
  /** Rolled out as `kubectl rollout status` sees it. */
  const rolledOut = async (replicas: number): Promise<Deployment | false> => {
    const d = await deployment();
    const s = d.status ?? {};
    const done = (s.observedGeneration ?? 0) >= d.metadata.generation! && s.updatedReplicas === replicas && s.replicas === replicas && s.availableReplicas === replicas;
    return done && (await pods()).length === replicas && d;
  };

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    events = memoryEventRecorder();
    const ctx = withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events });
    kubelet = fakeKubelet(api, f.clock);
    running = [await replicaSetController().start(ctx), await deploymentController().start(ctx)];
  });
  afterEach(async () => {
    kubelet.stop();
    await Promise.all(running.map((c) => c.close()));
  });

  it('runs 3 pods, replaces a deleted one, rolls out a new image and scales through the scale subresource', async () => {
    await api.create({ resource: 'deployments', group: 'apps', namespace: 'default' }, webDeployment(3));
    const first = await runUntil(f.clock, () => rolledOut(3), 'the first rollout');
    expect(first.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('1');
    expect(first.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual(
      expect.arrayContaining([['Available', 'True', 'MinimumReplicasAvailable'], ['Progressing', 'True', 'NewReplicaSetAvailable']]),
    );
    const [rs1] = await replicaSets();
    const hash = rs1!.metadata.labels!['pod-template-hash'];
    expect(rs1!.metadata.name).toBe(`web-${hash}`);
    const owned = await pods();
    for (const p of owned) {
      expect(p.metadata.name).toMatch(new RegExp(`^web-${hash}-[a-z0-9]{5}$`));
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs1!.metadata.name, uid: rs1!.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }

    // A deleted pod is replaced.
    const victim = owned[0]!.metadata.name!;
    await api.delete({ resource: 'pods', namespace: 'default', name: victim });
    await runUntil(f.clock, async () => (await readyPods()).length === 3 && !(await pods()).some((p) => p.metadata.name === victim), 'a replacement pod');
    expect((await pods()).length).toBe(3);

    // A new image rolls to a new ReplicaSet; the old one ends at 0 (merge patch drops the container's defaults).
    await api.patch(deployRef, { spec: { template: { spec: { containers: [{ name: 'app', image: 'kedge.io/hello:2.0' }] } } } });
    const second = await runUntil(f.clock, async () => {
      const d = await rolledOut(3);
      return d && (await pods()).every((p) => p.spec.containers[0]!.image === 'kedge.io/hello:2.0') && d;
    }, 'the rollout of hello:2.0');
    expect(second.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    const sets = await replicaSets();
    expect(sets).toHaveLength(2);
    const old = sets.find((s) => s.metadata.uid === rs1!.metadata.uid)!;
    const next = sets.find((s) => s.metadata.uid !== rs1!.metadata.uid)!;
    expect(old.spec.replicas).toBe(0);
    expect(old.status?.replicas).toBe(0);
    expect(next.spec.replicas).toBe(3);
    expect(next.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');

    // Scaled through the scale subresource.
    await api.patch({ ...deployRef, subresource: 'scale' }, { spec: { replicas: 5 } });
    await runUntil(f.clock, () => rolledOut(5), 'scaling to 5');
    expect((await readyPods()).length).toBe(5);
    expect((await replicaSets()).find((s) => s.metadata.uid === next.metadata.uid)?.spec.replicas).toBe(5);

    const reasons = new Set(events.events.map((e) => `${e.about.kind}/${e.reason}`));
    expect(reasons).toEqual(new Set(['Deployment/ScalingReplicaSet', 'ReplicaSet/SuccessfulCreate', 'ReplicaSet/SuccessfulDelete']));
  });

  it('rolls with Recreate: no new pod before the old ones are gone', async () => {
    const d = webDeployment(2);
    d.spec.strategy = { type: 'Recreate' };
    await api.create({ resource: 'deployments', group: 'apps', namespace: 'default' }, d);
    await runUntil(f.clock, () => rolledOut(2), 'the first rollout');
    // Old pods still present whenever a new one appears: Recreate allows none.
    const live = new Map<string, string>();
    const overlaps: number[] = [];
    const watching = api.watch<Pod>({ resource: 'pods', namespace: 'default' }).subscribe((e) => {
      const image = e.object.spec.containers[0]!.image!;
      if (e.type === 'DELETED') return void live.delete(e.object.metadata.uid!);
      if (e.type === 'ADDED' && image.endsWith(':2.0')) overlaps.push([...live.values()].filter((i) => i.endsWith(':1.0')).length);
      live.set(e.object.metadata.uid!, image);
    });
    try {
      await api.patch(deployRef, { spec: { template: { spec: { containers: [{ name: 'app', image: 'kedge.io/hello:2.0' }] } } } });
      await runUntil(f.clock, async () => {
        const done = await rolledOut(2);
        return done && (await pods()).every((p) => p.spec.containers[0]!.image === 'kedge.io/hello:2.0');
      }, 'the Recreate rollout');
    } finally {
      watching.unsubscribe();
    }
    expect(overlaps).toEqual([0, 0]);
    const scaled = events.events.filter((e) => e.reason === 'ScalingReplicaSet').map((e) => e.message.replace(/web-\w+/, 'rs'));
    expect(scaled.slice(-2)).toEqual(['Scaled down replica set rs from 2 to 0', 'Scaled up replica set rs from 0 to 2']);
  });
});
