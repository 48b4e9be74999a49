import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../cloud/client/client.js';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { daemonSetController } from '../../../cloud/controllers/daemonset/index.js';
import { podTemplateHash } from '../../../cloud/controllers/deployment/hash.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import type { ControllerRevision, DaemonSet } from '../../../shared/daemonset-types.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { Node, Pod } from '../../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../../support/api-fixture.js';
import { withInformers } from '../../support/controller-context.js';
import { runUntil } from '../../support/settle.js';
import { fakeKubelet } from '../deployment/fake-kubelet.js';
import { newAgent } from './fixtures.js';

const dsRef = { resource: 'daemonsets', group: 'apps', namespace: 'default', name: 'agent' };
const revisionsRef = { resource: 'controllerrevisions', group: 'apps', namespace: 'default' };
const podsRef = { resource: 'pods', namespace: 'default' };

const node = (name: string, labels: Record<string, string> = {}): Node => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
const pinnedTo = (pod: Pod): string | undefined =>
  (pod.spec.affinity as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms: { matchFields?: { values?: string[] }[] }[] } } } | undefined)
    ?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0]?.matchFields?.[0]?.values?.[0] ?? pod.spec.nodeName;

describe('the DaemonSet controller with the apiserver', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let controller: RunningController;
  let kubelet: ReturnType<typeof fakeKubelet>;
  let events: ReturnType<typeof memoryEventRecorder>;

  const pods = async (): Promise<Pod[]> => (await api.list<Pod>(podsRef)).items.filter((p) => !p.metadata.deletionTimestamp);
  const placement = async (): Promise<string[]> => (await pods()).map((p) => `${pinnedTo(p)}:${p.spec.containers[0]!.image}`).sort();

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    events = memoryEventRecorder();
    for (const name of ['a', 'b']) await api.create({ resource: 'nodes' }, node(name, { zone: 'edge' }));
    kubelet = fakeKubelet(api, f.clock);
    controller = await daemonSetController().start(withInformers({ api, clock: f.clock, timing: defaultTiming, logger: silentLogger, events }));
  });
  afterEach(async () => {
    kubelet.stop();
    await controller.close();
  });

  it('adopts a matching orphan instead of starting a second pod on its node (OnDelete: and keeps it)', async () => {
    const orphan = await api.create<Pod>(podsRef, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', labels: { app: 'agent' } }, spec: { nodeName: 'a', containers: [{ name: 'agent', image: 'kedge.io/agent:1' }] } });
    await api.create({ ...dsRef, name: undefined }, newAgent({ type: 'OnDelete' }));
    await runUntil(f.clock, async () => (await placement()).join() === 'a:kedge.io/agent:1,b:kedge.io/agent:1', 'one pod on each node');
    const adopted = await api.get<Pod>({ ...podsRef, name: 'orphan' });
    expect(adopted.metadata.uid).toBe(orphan.metadata.uid);
    expect(adopted.metadata.ownerReferences).toMatchObject([{ kind: 'DaemonSet', name: 'agent', controller: true }]);
  });

  it('follows node changes: a new node gets a pod, a node that stops matching loses it', async () => {
    const ds = newAgent();
    ds.spec.template.spec.nodeSelector = { zone: 'edge' };
    await api.create({ ...dsRef, name: undefined }, ds);
    await runUntil(f.clock, async () => (await placement()).length === 2, 'a pod on a and b');
    await api.create({ resource: 'nodes' }, node('c', { zone: 'edge' }));
    await runUntil(f.clock, async () => (await placement()).map((p) => p.split(':')[0]).join() === 'a,b,c', 'the new node c to get its pod');
    await api.patch({ resource: 'nodes', name: 'a' }, { metadata: { labels: { zone: 'core' } } }, 'merge');
    await runUntil(f.clock, async () => (await placement()).map((p) => p.split(':')[0]).join() === 'b,c', 'a to lose its pod');
    await runUntil(f.clock, async () => {
      const s = (await api.get<DaemonSet>(dsRef)).status;
      return s?.desiredNumberScheduled === 2 && s.numberMisscheduled === 0 && s.numberReady === 2;
    }, 'the status to say so');
  });

  it('OnDelete: a new template reaches a node only when its pod is deleted', async () => {
    await api.create({ ...dsRef, name: undefined }, newAgent({ type: 'OnDelete' }));
    await runUntil(f.clock, async () => (await placement()).length === 2, 'a pod on a and b');
    await api.patch(dsRef, { spec: { template: { spec: { containers: [{ name: 'agent', image: 'kedge.io/agent:2' }] } } } }, 'strategic');
    await runUntil(f.clock, async () => (await api.list<ControllerRevision>(revisionsRef)).items.length === 2, 'a second revision');
    await runUntil(f.clock, async () => (await api.get<DaemonSet>(dsRef)).status?.observedGeneration === 2, 'the change observed');
    expect(await placement()).toEqual(['a:kedge.io/agent:1', 'b:kedge.io/agent:1']);
    const onA = (await pods()).find((p) => pinnedTo(p) === 'a')!;
    await api.delete({ ...podsRef, name: onA.metadata.name });
    await runUntil(f.clock, async () => (await placement()).join() === 'a:kedge.io/agent:2,b:kedge.io/agent:1', 'a replaced with the new template');
    expect((await api.get<DaemonSet>(dsRef)).status).toMatchObject({ updatedNumberScheduled: 1, desiredNumberScheduled: 2 });
  });

  it('counts a revision name taken by another template as a collision and picks another name', async () => {
    const ds = newAgent();
    const hash = podTemplateHash(ds.spec.template);
    const squatter: ControllerRevision = { apiVersion: 'apps/v1', kind: 'ControllerRevision', metadata: { name: `agent-${hash}`, labels: { app: 'other' } }, data: { spec: {} }, revision: 1 };
    await api.create(revisionsRef, squatter);
    await api.create({ ...dsRef, name: undefined }, ds);
    await runUntil(f.clock, async () => (await placement()).length === 2, 'a pod on a and b');
    const created = await api.get<DaemonSet>(dsRef);
    expect(created.status?.collisionCount).toBe(1);
    const ours = (await api.list<ControllerRevision>(revisionsRef)).items.filter((r) => r.metadata.ownerReferences?.some((o) => o.uid === created.metadata.uid));
    expect(ours.map((r) => r.metadata.name)).toEqual([`agent-${podTemplateHash(ds.spec.template, 1)}`]);
    expect((await pods()).every((p) => p.metadata.labels?.['controller-revision-hash'] === podTemplateHash(ds.spec.template, 1))).toBe(true);
  });
});
