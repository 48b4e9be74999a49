import type { EdgeEvent } from '../../../shared/protocol/envelope.js';

/** An event about node edge-1 under `name`. */
export function edgeEvent(name: string, count = 1, at = '2026-01-01T00:00:00Z'): EdgeEvent {
  return { name, involvedObject: { kind: 'Node', name: 'edge-1', uid: 'edge-1' }, reason: 'Starting', message: 'Starting kubelet.', type: 'Normal', count, firstTimestamp: at, lastTimestamp: at };
}
