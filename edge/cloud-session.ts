import { Subscription, type Observable } from 'rxjs';
import type { Logger } from '../shared/log.js';
import type { DownMessage } from '../shared/protocol/envelope.js';
import type { Timing } from '../shared/timing.js';
import type { Edged } from './edged/edged.js';
import type { Connectivity } from '../shared/transport.js';
import type { StatusSender } from './hub/status-sender.js';
import type { CloudMessageHandler } from './metamanager/cloud-message-handler.js';
import type { LowdbCache } from './metamanager/lowdb-cache.js';

export interface CloudSessionDeps {
  inbound$: Observable<DownMessage>;
  connectivity$: Observable<Connectivity>;
  handler: Pick<CloudMessageHandler, 'handle' | 'synced$'>;
  cache: Pick<LowdbCache, 'awaitingRelist' | 'relisted' | 'flush'>;
  edged: Pick<Edged, 'sync' | 'reportAllStatuses'>;
  statuses: Pick<StatusSender, 'reset' | 'flush'>;
  timing: Pick<Timing, 'nodeMonitorGraceMs'>;
  logger: Logger;
}

/**
 * The edge's side of its sessions with the cloud: every inbound message is handled; a new
 * session sends the pending statuses again, or every status after a long absence; the cloud's
 * answer to a hello ends the hold on the pods a lost cache lacks, and may ask for every
 * status. Returns what ends it.
 */
export function followCloudSessions(deps: CloudSessionDeps): () => void {
  const { handler, cache, edged, statuses, timing, logger } = deps;
  const resendAll = (): void => void edged.reportAllStatuses().then(() => statuses.flush());
  const subscriptions = new Subscription();
  subscriptions.add(
    deps.inbound$.subscribe((message) => {
      // A message that passed validation but cannot be applied is dropped and logged, never fatal.
      const dropped = (err: unknown): void => logger.error('dropped a message that could not be applied', { type: message.type, id: message.id, error: String(err) });
      try {
        handler.handle(message).catch(dropped);
      } catch (err) {
        dropped(err);
      }
    }),
  );
  let downSince: number | undefined;
  let firstSession = true;
  subscriptions.add(
    deps.connectivity$.subscribe((c) => {
      if (!c.connected) return void (downSince ??= c.since);
      statuses.reset(); // a new session: everything pending goes out again [SYNC-12]
      // [SYNC-15] Gone long enough for the cloud to have written its own view of our pods.
      const longAbsence = firstSession || (downSince !== undefined && c.since - downSince >= timing.nodeMonitorGraceMs);
      firstSession = false;
      downSince = undefined;
      if (longAbsence) resendAll();
      else statuses.flush();
    }),
  );
  subscriptions.add(
    handler.synced$.subscribe((m) => {
      if (cache.awaitingRelist()) {
        cache.relisted();
        logger.info('in sync with the cloud again after the cache was damaged: the pods it did not relist are stopped');
        cache.flush().catch((err: Error) => logger.warn('could not persist the end of the hold; it ends again at the next sync', { error: err.message }));
        void edged.sync();
      }
      // [SYNC-15] However short the absence, the cloud may have marked our pods not ready: it says so.
      if (m.body.resendStatuses) resendAll();
    }),
  );
  return () => subscriptions.unsubscribe();
}
