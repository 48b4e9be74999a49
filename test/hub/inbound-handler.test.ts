import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../cloud/client/client.js';
import { inboundHandler, type HubRejection, type InboundDeps } from '../../cloud/hub/inbound-handler.js';
import { FakeClock } from '../../shared/clock.js';
import { KedgeError } from '../../shared/errors.js';
import { silentLogger } from '../../shared/log.js';
import { EnvelopeStamper, type DownDraft, type DownMessage, type UpDraft } from '../../shared/protocol/envelope.js';
import type { Node } from '../../shared/types.js';

const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'edge-1' }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } };

/** The hub's handler with an API that refuses every write of node edge-1 for good (403), as NodeRestriction or validation would. */
function refusingHub() {
  const sent: DownDraft[] = [];
  const rejected: HubRejection[] = [];
  const refusing = {
    get: async () => node,
    create: async () => Promise.reject(new KedgeError('Forbidden', 'nodes "edge-1" is forbidden')),
    replace: async () => Promise.reject(new KedgeError('Forbidden', 'nodes "edge-1" is forbidden')),
  } as unknown as ApiClient;
  const deps: InboundDeps = {
    api: refusing,
    apiAsNode: () => refusing,
    clock: new FakeClock(),
    logger: silentLogger,
    stats: { malformed: 0, received: 0, sent: 0, logRequests: 0, resent: 0, acked: 0, sentBytes: 0 },
    transport: { send: (_node, draft) => (sent.push(draft), draft as DownMessage), resend: () => {} },
    // Not reached by node statuses and heartbeats.
    sessions: undefined as never,
    logRequests: undefined as never,
    boundPods: undefined as never,
    usages: undefined as never,
    reportedConditions: new Map([['edge-1', node.status!.conditions!]]),
    nodeUid: () => undefined,
    reject: (reason) => rejected.push(reason),
  };
  const stamper = new EnvelopeStamper('edge-1', 'e1');
  const handle = inboundHandler(deps);
  const receive = async (draft: UpDraft) => {
    const message = stamper.stamp(draft);
    await handle({ node: 'edge-1', channel: 'up', message });
    return message;
  };
  return { receive, sent, rejected };
}

describe('a report the API refuses for good', () => {
  it('a node status: counted, and acked so that the edge stops sending it', async () => {
    const hub = refusingHub();
    const message = await hub.receive({ type: 'nodeStatus', body: node });
    expect(hub.rejected).toEqual(['refused-by-api']);
    expect(hub.sent).toEqual([{ type: 'ack', parentId: message.id }]);
  });

  it('a heartbeat: counted, and not acked, as no heartbeat ever is', async () => {
    const hub = refusingHub();
    await hub.receive({ type: 'heartbeat' });
    expect(hub.rejected).toEqual(['refused-by-api']);
    expect(hub.sent).toEqual([]);
  });
});
