import { BehaviorSubject, concatMap, filter, map, take } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient, ResourceRef, WatchOptions } from '../../../cloud/client/client.js';
import type { RunningController } from '../../../cloud/controllers/controller.js';
import { memoryEventRecorder } from '../../../cloud/controllers/events.js';
import { replicaSetController } from '../../../cloud/controllers/replicaset/index.js';
import type { ReplicaSet } from '../../../shared/apps-types.js';
import { silentLogger } from '../../../shared/log.js';
import { defaultTiming } from '../../../shared/timing.js';
import type { KubeObject, Pod } from '../../../shared/types.js';
import { ADMIN_TOKEN, apiFixture, type ApiFixture } from '../../support/api-fixture.js';
import { pass, runUntil } from '../../support/settle.js';
import { withInformers } from '../../support/controller-context.js';

const rsRef = { resource: 'replicasets', group: 'apps', namespace: 'default' };

function web(replicas: number): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web' },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'kedge.io/hello:1.0' }] } },
    },
  };
}

describe('the ReplicaSet controller with the apiserver', () => {
  let f: ApiFixture;
  let api: ApiClient;
  let controller: RunningController;
  let events: ReturnType<typeof memoryEventRecorder>;
  /** While false, the controller's pod watch holds its events back: a lagging informer. */
  let podEventsFlow: BehaviorSubject<boolean>;

  const pods = async (): Promise<Pod[]> => (await api.list<Pod>({ resource: 'pods', namespace: 'default' })).items;

  beforeEach(async () => {
    f = await apiFixture();
    api = f.api.loopback(ADMIN_TOKEN);
    events = memoryEventRecorder();
    podEventsFlow = new BehaviorSubject(true);
    const lagging: ApiClient = {
      ...api,
      watch: <T extends KubeObject>(ref: ResourceRef, options?: WatchOptions) => {
        const events$ = api.watch<T>(ref, options);
        if (ref.resource !== 'pods') return events$;
        return events$.pipe(concatMap((e) => podEventsFlow.pipe(filter(Boolean), take(1), map(() => e))));
      },
    };
    controller = await replicaSetController().start(withInformers({ api: lagging, clock: f.clock, timing: defaultTiming, logger: silentLogger, events }));
  });
  afterEach(() => controller.close());

  it('never creates twice while its informer lags behind its own creations (expectations)', async () => {
    podEventsFlow.next(false);
    await api.create(rsRef, web(3));
    await runUntil(f.clock, async () => (await pods()).length >= 3, 'the first pods');
    // The status write (replicas: 0, seen from the empty cache) wakes the ReplicaSet again, more than once.
    await api.patch({ ...rsRef, name: 'web' }, { metadata: { labels: { touched: 'yes' } } });
    await pass(f.clock, 1_000, 100);
    expect(await pods()).toHaveLength(3);
    podEventsFlow.next(true);
    const rs = await runUntil(f.clock, async () => {
      const current = await api.get<ReplicaSet>({ ...rsRef, name: 'web' });
      return current.status?.replicas === 3 && current;
    }, 'status.replicas 3');
    expect(rs.status).toMatchObject({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1 });
    expect(await pods()).toHaveLength(3);
    expect(events.events.filter((e) => e.reason === 'SuccessfulCreate')).toHaveLength(3);
  });

  it('adopts a matching orphan, scales down and records what it did', async () => {
    const orphan = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'orphan', labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'x' }] } });
    const created = await api.create<ReplicaSet>(rsRef, web(2));
    await runUntil(f.clock, async () => (await pods()).length === 2 && (await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'orphan' })).metadata.ownerReferences, 'adoption');
    const adopted = await api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'orphan' });
    expect(adopted.metadata.uid).toBe(orphan.metadata.uid);
    expect(adopted.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);

    await api.patch({ ...rsRef, name: 'web', subresource: 'scale' }, { spec: { replicas: 0 } });
    await runUntil(f.clock, async () => (await pods()).length === 0, 'scaled to 0');
    expect(events.events.filter((e) => e.reason === 'SuccessfulDelete').map((e) => e.message).sort()).toHaveLength(2);
    await runUntil(f.clock, async () => (await api.get<ReplicaSet>({ ...rsRef, name: 'web' })).status?.replicas === 0, 'status.replicas 0');
  });
});
