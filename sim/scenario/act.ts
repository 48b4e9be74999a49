import type { ApiClient } from '../../cloud/client/client.js';
import type { Clock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import type { KubeObject } from '../../shared/types.js';
import { severalClouds, type ScenarioCluster } from './cluster.js';
import { refOf } from './manifests.js';
import type { DeleteStep, ExpectStep, Step } from './types.js';

export type ActionStep = Exclude<Step, ExpectStep>;

export interface ActDeps {
  cluster: ScenarioCluster;
  clock: Clock;
  timeScale: number;
  signal?: AbortSignal;
}

/** Creates the object, or replaces it when it exists (as `kubectl apply` would, without merging). */
async function createOrReplace(api: ApiClient, object: KubeObject): Promise<void> {
  const ref = refOf(object);
  try {
    await api.create(ref, structuredClone(object));
  } catch (err) {
    if (!isKedgeError(err, 'AlreadyExists') || object.metadata.name === undefined) throw err;
    const named = { ...ref, name: object.metadata.name };
    const current = await api.get(named);
    await api.replace(named, { ...structuredClone(object), metadata: { ...object.metadata, resourceVersion: current.metadata.resourceVersion } });
  }
}

/** Deletes one object by name, or the first `count` (by name) still alive that match the selector. */
async function remove(api: ApiClient, step: DeleteStep): Promise<string[]> {
  const ref = { resource: step.target.resource, group: step.target.group, ...(step.target.namespaced && { namespace: step.namespace }) };
  if (step.name !== undefined) {
    await api.delete({ ...ref, name: step.name });
    return [step.name];
  }
  const { items } = await api.list(ref, { labelSelector: step.selector });
  const alive = items.filter((o) => !o.metadata.deletionTimestamp);
  const names = alive.map((o) => o.metadata.name!).sort().slice(0, step.count ?? alive.length);
  if (names.length === 0) throw new Error(`no ${step.target.resource} match ${step.selector}`);
  for (const name of names) await api.delete({ ...ref, name });
  return names;
}

/** Does one step that changes the cluster; resolves with a detail worth printing, if any. */
export async function act(step: ActionStep, d: ActDeps): Promise<string | undefined> {
  const { cluster } = d;
  switch (step.kind) {
    case 'apply':
      for (const object of step.objects) await createOrReplace(cluster.api, object);
      return undefined;
    case 'delete':
      return `deleted ${(await remove(cluster.api, step)).join(', ')}`;
    case 'scale':
      await cluster.api.patch({ resource: 'deployments', group: 'apps', namespace: step.namespace, name: step.deployment }, { spec: { replicas: step.replicas } });
      return undefined;
    case 'cut':
    case 'heal':
      for (const node of step.nodes) cluster.link(node, step.kind);
      return undefined;
    case 'shape':
    case 'flap':
      cluster.shapeLink(step);
      return undefined;
    case 'crash':
    case 'restart':
    case 'reboot': {
      const how = { crash: step.kind === 'crash', reboot: step.kind === 'reboot' };
      await Promise.all(step.nodes.map((node) => cluster.restartEdge(node, how)));
      return undefined;
    }
    case 'stop':
    case 'start':
      await (step.node === undefined ? cluster.component(step.component, step.kind) : cluster.edgeComponent(step.node, step.component, step.kind));
      return undefined;
    case 'etcd':
      if (!cluster.etcd) throw new Error('this cluster runs no etcd');
      return cluster.etcd.act(step.member, step.action);
    case 'wait':
      await d.clock.sleep(step.ms / d.timeScale, d.signal);
      return undefined;
    case 'cloud':
      return severalClouds(cluster).act(step);
  }
}
