import type { Observable } from 'rxjs';
import type { Clock } from '../../shared/clock.js';
import type { Logger } from '../../shared/log.js';
import type { UpDraft } from '../../shared/protocol/envelope.js';
import type { Node } from '../../shared/types.js';
import { ReportGate } from '../report-gate.js';

export interface NodeHeartbeatDeps {
  connectivity$: Observable<{ connected: boolean }>;
  isConnected: () => boolean;
  send: (draft: UpDraft) => Promise<string>;
  buildNode: () => Node;
  clock: Clock;
  /** How often the node says it is alive. */
  intervalMs: number;
  /** Longest time between two full statuses when nothing changed. */
  reportMs: number;
  logger: Logger;
}

/** The node's status without its heartbeat times: what a full report is worth sending for. */
function fingerprint(node: Node): string {
  const conditions = node.status?.conditions?.map(({ lastHeartbeatTime: _beat, ...rest }) => rest);
  return JSON.stringify([node.metadata.labels, node.spec, { ...node.status, conditions }]);
}

/**
 * [SYNC-11] Sends the full `nodeStatus` on every connect (registration), whenever it changes
 * and at least every reportMs; in between, a small `heartbeat` every intervalMs — like the
 * kubelet, whose status reports are rare and whose lease renewals are cheap. Returns the
 * function that stops it.
 */
export function startNodeHeartbeat(deps: NodeHeartbeatDeps): () => void {
  const reports = new ReportGate(deps.reportMs);
  const send = (draft: UpDraft): void => {
    deps.send(draft).catch((err: Error) => deps.logger.info('node status not sent', { error: err.message }));
  };
  const beat = (force: boolean): void => {
    if (!deps.isConnected()) return;
    const node = deps.buildNode();
    if (reports.due(fingerprint(node), deps.clock.now(), force)) send({ type: 'nodeStatus', body: node });
    else send({ type: 'heartbeat' });
  };
  const subscription = deps.connectivity$.subscribe((c) => {
    if (c.connected) beat(true);
  });
  const cancel = deps.clock.setRepeating(deps.intervalMs, () => beat(false));
  return () => {
    cancel();
    subscription.unsubscribe();
  };
}
