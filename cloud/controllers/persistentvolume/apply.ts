import type { Clock } from '../../../shared/clock.js';
import { ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, type PersistentVolume, type PersistentVolumeClaim } from '../../../shared/storage-types.js';
import type { KubeObject } from '../../../shared/types.js';
import type { ApiClient, ResourceRef } from '../../client/client.js';
import { timestamp } from '../../client/object-meta.js';
import type { EventRecorder } from '../events.js';
import type { VolumeAction } from './actions.js';

export interface VolumeApplyDeps {
  api: ApiClient;
  clock: Clock;
  events: EventRecorder;
  /** Events already recorded (object uid, reason, message), so a claim that stays waiting is told once. */
  said: Set<string>;
}

const volumeRef = (v: PersistentVolume, subresource?: string): ResourceRef => ({ resource: 'persistentvolumes', name: v.metadata.name, subresource });
const claimRef = (c: PersistentVolumeClaim, subresource?: string): ResourceRef => ({ resource: 'persistentvolumeclaims', namespace: c.metadata.namespace, name: c.metadata.name, subresource });

/**
 * Writes the actions in order, as merge patches that carry the resourceVersion the plan saw
 * (then the one each write returned), so a plan made from a stale cache fails with a Conflict
 * and is made again, instead of undoing a newer write.
 */
export async function applyVolumeActions(deps: VolumeApplyDeps, actions: readonly VolumeAction[]): Promise<void> {
  const latest = new Map<string, string | undefined>();
  const patch = async (obj: KubeObject, ref: ResourceRef, body: Record<string, unknown>): Promise<void> => {
    const uid = obj.metadata.uid ?? '';
    const resourceVersion = latest.has(uid) ? latest.get(uid) : obj.metadata.resourceVersion;
    const meta = (body.metadata ?? {}) as Record<string, unknown>;
    const written = await deps.api.patch<KubeObject>(ref, { ...body, metadata: { ...meta, resourceVersion } }, 'merge');
    latest.set(uid, written.metadata.resourceVersion);
  };
  for (const action of actions) {
    switch (action.type) {
      case 'bindVolume': {
        const { volume, claim } = action;
        const annotations = volume.spec.claimRef ? {} : { [ANN_BOUND_BY_CONTROLLER]: 'yes' };
        const ref = { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: claim.metadata.namespace, name: claim.metadata.name, uid: claim.metadata.uid, resourceVersion: claim.metadata.resourceVersion };
        await patch(volume, volumeRef(volume), { metadata: { annotations }, spec: { claimRef: ref } });
        break;
      }
      case 'unbindVolume':
        await patch(action.volume, volumeRef(action.volume), { metadata: { annotations: { [ANN_BOUND_BY_CONTROLLER]: null } }, spec: { claimRef: null } });
        break;
      case 'volumePhase': {
        const status = { phase: action.phase, message: action.message ?? null, lastPhaseTransitionTime: timestamp(deps.clock.now()) };
        await patch(action.volume, volumeRef(action.volume, 'status'), { status });
        break;
      }
      case 'bindClaim': {
        const { claim, volume } = action;
        const annotations = { [ANN_BIND_COMPLETED]: 'yes', ...(claim.spec.volumeName ? {} : { [ANN_BOUND_BY_CONTROLLER]: 'yes' }) };
        await patch(claim, claimRef(claim), { metadata: { annotations }, spec: { volumeName: volume.metadata.name } });
        break;
      }
      case 'annotateClaim':
        await patch(action.claim, claimRef(action.claim), { metadata: { annotations: action.annotations } });
        break;
      case 'claimStatus': {
        const { volume } = action;
        const status = volume ? { phase: action.phase, capacity: volume.spec.capacity ?? null, accessModes: volume.spec.accessModes ?? null } : { phase: action.phase };
        await patch(action.claim, claimRef(action.claim, 'status'), { status });
        break;
      }
      case 'event': {
        const key = `${action.about.metadata.uid}/${action.reason}/${action.message}`;
        if (deps.said.has(key)) break;
        deps.said.add(key);
        deps.events.record(action.about, action.eventType, action.reason, action.message);
        break;
      }
    }
  }
}
