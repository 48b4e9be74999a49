import type { Subscription } from 'rxjs';
import type { ApiClient } from '../../../cloud/client/client.js';
import { informer } from '../../../cloud/informer/informer.js';
import type { Clock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import type { Pod } from '../../../shared/types.js';

/**
 * TEST DOUBLE. A "kubelet" for every node at once: each pod it sees becomes Running and
 * Ready (through pods/status) while `ready` is on. No scheduler or edge is involved.
 */
export function fakeKubelet(api: ApiClient, clock: Clock): { ready: boolean; stop(): void } {
  const state = { ready: true };
  const seen = new Map<string, Pod>();
  const markReady = (pod: Pod): void => {
    if (!state.ready || pod.metadata.deletionTimestamp || pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) return;
    const at = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const status = { ...pod.status, phase: 'Running' as const, conditions: [{ type: 'Ready', status: 'True' as const, lastTransitionTime: at }] };
    const { namespace, name } = pod.metadata;
    api.replace({ resource: 'pods', namespace, name, subresource: 'status' }, { ...pod, status }).catch(() => undefined);
  };
  const sub: Subscription = informer<Pod>(api, { resource: 'pods' }, { clock, logger: silentLogger }).subscribe((e) => {
    if (e.type === 'SYNCED') return;
    if (e.type === 'DELETED') return void seen.delete(e.object.metadata.uid!);
    seen.set(e.object.metadata.uid!, e.object);
    markReady(e.object);
  });
  return {
    get ready() {
      return state.ready;
    },
    set ready(on: boolean) {
      state.ready = on;
      if (on) for (const pod of seen.values()) markReady(pod);
    },
    stop: () => sub.unsubscribe(),
  };
}
