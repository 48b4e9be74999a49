import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { metricsText } from '../../cloud/metrics.js';
import { FakeClock } from '../../shared/clock.js';
import { encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { startFirstPod } from '../support/cluster-pods.js';
import { eventually } from '../support/eventually.js';

/**
 * /metrics of a running cloud counts what its broker and hub refuse: a takeover of another
 * node's client id, and a status forged for another node's pod.
 */
describe('/metrics counts the broker\'s and the hub\'s refusals', () => {
  let cluster: Cluster<FakeClock> | undefined;
  const clients: MqttClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await cluster?.stop();
    cluster = undefined;
  });

  it('a client-id takeover and a forged pod status', { timeout: 60_000 }, async () => {
    const c = (cluster = await Cluster.start({ transport: 'mqtt', clock: new FakeClock(), nodes: 1 }));
    const web = await startFirstPod(c, 'web');
    const token = c.cloud.credentials.edge;
    const options = { username: 'rogue', password: token, protocolVersion: 4 as const, reconnectPeriod: 0 };
    await expect(connectAsync(c.cloud.brokerUrl, { ...options, clientId: 'edge-1' })).rejects.toThrow(/Identifier rejected/);
    const rogue = await connectAsync(c.cloud.brokerUrl, { ...options, clientId: 'rogue' });
    clients.push(rogue);
    const ref = { kind: 'Pod', namespace: 'default', name: 'web', uid: web.metadata.uid!, resourceVersion: web.metadata.resourceVersion! };
    const forged = new EnvelopeStamper('rogue', 'r1').stamp({ type: 'podStatus', ref, body: { phase: 'Failed' }, statusVersion: Number.MAX_SAFE_INTEGER });
    await rogue.publishAsync(topics.up('rogue'), encode(forged), { qos: 1 });

    const text = await eventually(c.clock, () => {
      const t = metricsText(c.cloud.counters, c.cloud.hub.stats());
      return t.includes('kedge_hub_rejected_total{reason="pod-of-another-node"} 1') && t;
    }, 'the forged status counted', { wallTimeoutMs: 30_000 }); // over the real broker: generous for a busy machine
    expect(text).toContain('kedge_broker_refused_total{reason="client-id"} 1');
    expect(text).toContain('# HELP kedge_hub_rejected_total');
    expect((await c.api.get<Pod>({ resource: 'pods', namespace: 'default', name: 'web' })).status?.phase).toBe('Running');
  });
});
