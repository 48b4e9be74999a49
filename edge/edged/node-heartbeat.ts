import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { UpDraft } from '../../shared/protocol/envelope.js';
import type { Node } from '../../shared/types.js';

export interface NodeHeartbeatDeps {
  connectivity$: Observable<{ connected: boolean }>;
  isConnected: () => boolean;
  send: (draft: UpDraft) => Promise<string>;
  buildNode: () => Node;
  clock: Clock;
  intervalMs: number;
  logger: Logger;
}

/**
 * Sends `nodeStatus` on every connect (registration) and every intervalMs while connected
 * (heartbeat) [SYNC-11]. Returns the function that stops it.
 */
export function startNodeHeartbeat(deps: NodeHeartbeatDeps): () => void {
  const beat = (): void => {
    if (!deps.isConnected()) return;
    deps.send({ type: 'nodeStatus', body: deps.buildNode() }).catch((err: Error) => {
      deps.logger.info('node status not sent', { error: err.message });
    });
  };
  const subscription = deps.connectivity$.subscribe((c) => {
    if (c.connected) beat();
  });
  const cancel = deps.clock.setRepeating(deps.intervalMs, beat);
  return () => {
    cancel();
    subscription.unsubscribe();
  };
}
