import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryAckLedger } from '../../cloud/hub/ack-ledger.js';
import { startCloudHub, type CloudHubHandle } from '../../cloud/hub/cloud-hub.js';
import type { ConfigMap } from '../../shared/config-types.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { decodeDown } from '../../shared/protocol/codec.js';
import type { DownMessage } from '../../shared/protocol/envelope.js';
import { PublishLanes, type PublishOrder } from '../../shared/publish-lanes.js';
import { defaultTiming } from '../../shared/timing.js';
import type { Transport } from '../../shared/transport.js';
import type { Pod } from '../../shared/types.js';
import { FakeApiClient } from '../support/fake-api-client.js';
import { NodeDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { pass } from '../support/settle.js';

/**
 * The cloud's client of the broker with its lanes over a socket whose reader is paused: what
 * the lanes write is held, in the order written, until the test lets it through to the broker.
 */
class HeldSocket {
  private readonly held: Array<{ topic: string; payload: Buffer; done: () => void }> = [];

  constructor(private readonly inner: Transport) {}

  get unsent(): number {
    return this.held.reduce((sum, h) => sum + h.payload.length, 0);
  }

  /** What was written so far, as `type Kind/name` lines. */
  written(): string[] {
    return this.held.map((h) => line((decodeDown(h.payload) as { ok: true; message: DownMessage }).message));
  }

  write(topic: string, payload: Buffer): Promise<void> {
    return new Promise((done) => this.held.push({ topic, payload, done }));
  }

  /** The reader takes everything written so far; the broker delivers and acks it. */
  async release(): Promise<void> {
    for (const h of this.held.splice(0)) {
      await this.inner.publish(h.topic, h.payload);
      h.done();
    }
  }
}

const line = (m: DownMessage): string => ('ref' in m ? `${m.type} ${m.ref.kind}/${m.ref.name}` : m.type);

/** `inner` with its publishes through lanes over `socket`. */
function throughLanes(inner: Transport, socket: HeldSocket): Transport {
  const lanes = new PublishLanes({ unsentBytes: () => socket.unsent, write: (topic, payload) => socket.write(topic, payload) });
  return new Proxy(inner, {
    get: (target, prop, receiver) => (prop === 'publish' ? (topic: string, payload: Buffer, order?: PublishOrder) => lanes.publish(topic, payload, order) : Reflect.get(target, prop, receiver)),
  });
}

const timing = { ...defaultTiming, resendMinMs: 60_000, resendMaxMs: 60_000 };
const bigConfigMap = (name: string): ConfigMap => ({ metadata: { name, namespace: 'default' }, data: { a: 'x'.repeat(600 * 1024) } });

describe('the cloud hub publishes control ahead of large objects, and keeps the sync’s order', () => {
  let sync: MemorySync;
  let api: FakeApiClient;
  let clock: FakeClock;
  let hub: CloudHubHandle;
  let socket: HeldSocket;
  let edge: NodeDouble;

  beforeEach(async () => {
    api = new FakeApiClient();
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing });
    const link = sync.cloudLink();
    socket = new HeldSocket(link.transport);
    hub = await startCloudHub({ api, apiAsNode: () => api, transport: throughLanes(link.transport, socket), epoch: link.epoch, clock, timing, logger: silentLogger, ledger: new MemoryAckLedger() });
    edge = await NodeDouble.connect(sync, 'edge-1');
  });
  afterEach(async () => {
    await edge.close();
    await hub.close();
    await sync.close();
  });

  it('acks a status ahead of a queued large ConfigMap; the pod and synced stay behind what they reference', async () => {
    for (const name of ['big-a', 'big-b']) await api.create<ConfigMap>({ resource: 'configmaps', namespace: 'default' }, bigConfigMap(name));
    const volumes = ['big-a', 'big-b'].map((name) => ({ name, configMap: { name } }));
    const pod = await api.create<Pod>({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'edge-1', containers: [{ name: 'c', image: 'busybox' }], volumes } });
    await pass(clock, 100, 20);
    await edge.send({ type: 'hello', body: { bootId: 'b', holds: [] } });
    await pass(clock, 100, 20);
    const { uid, resourceVersion } = pod.metadata;
    await edge.send({ type: 'podStatus', ref: { kind: 'Pod', namespace: 'default', name: 'web', uid: uid!, resourceVersion: resourceVersion! }, body: { phase: 'Running' }, statusVersion: 1 });
    await pass(clock, 100, 20);
    // The first ConfigMap filled the socket; the ack of the status went at once, ahead of the rest.
    expect(socket.written()).toEqual(['apply ConfigMap/big-a', 'ack']);
    for (let i = 0; i < 5; i++) {
      await socket.release();
      await pass(clock, 100, 20);
    }
    expect(edge.received.map(line)).toEqual(['apply ConfigMap/big-a', 'ack', 'apply ConfigMap/big-b', 'apply Pod/web', 'synced']);
  });
});
