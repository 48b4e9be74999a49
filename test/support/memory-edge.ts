import type { FakeClock } from '../../shared/clock.js';
import { decodeDown, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type UpDraft, type UpMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Transport } from '../../shared/transport.js';
import type { MemoryBroker } from '../../sim/memory-broker.js';
import { memoryClient } from './memory-sync.js';
import { runUntil } from './settle.js';

/**
 * TEST DOUBLE. MqttEdge (test/support/mqtt-edge.ts) over a MemoryBroker: a client playing an
 * edge node that records every down message and publishes whatever the test tells it to, with
 * no protocol logic of its own. It waits on the FakeClock, never on the wall clock.
 */
export class MemoryEdge {
  readonly received: DownMessage[] = [];
  readonly stamper: EnvelopeStamper;

  private constructor(
    readonly node: string,
    readonly transport: Transport,
    private readonly clock: FakeClock,
    epoch: string,
  ) {
    this.stamper = new EnvelopeStamper(node, epoch);
    transport.inbound$.subscribe(({ payload }) => {
      const decoded = decodeDown(payload);
      if (decoded.ok) this.received.push(decoded.message);
    });
  }

  /** Connected (its client id is its node name) and subscribed to its down topic; its will says it went offline. */
  static async connect(broker: MemoryBroker, clock: FakeClock, node: string, password: string, epoch = `${node}-e1`): Promise<MemoryEdge> {
    const transport = memoryClient(broker, clock, { clientId: node, username: node, password });
    const edge = new MemoryEdge(node, transport, clock, epoch);
    transport.start({ subscriptions: [topics.down(node)], will: { topic: topics.presence(node), payload: encode({ online: false, epoch }) } });
    await runUntil(clock, () => transport.connectivity.connected, `${node} connected`);
    return edge;
  }

  get epoch(): string {
    return this.stamper.epoch;
  }

  /** Stamps and publishes `draft` without waiting for the broker's acknowledgement. */
  publish(draft: UpDraft): { message: UpMessage; acked: Promise<void> } {
    const message = this.stamper.stamp(draft) as UpMessage;
    return { message, acked: this.transport.publish(topics.up(this.node), encode(message)) };
  }

  async send(draft: UpDraft): Promise<UpMessage> {
    const { message, acked } = this.publish(draft);
    await acked;
    return message;
  }

  async presence(online: boolean): Promise<void> {
    await this.transport.retain({ topic: topics.presence(this.node), payload: encode({ online, epoch: this.epoch }) });
  }

  /** Moves the FakeClock until `count` down messages match, then returns them. */
  async expect(match: (m: DownMessage) => boolean, count = 1, what = 'down messages'): Promise<DownMessage[]> {
    return runUntil(this.clock, () => {
      const found = this.received.filter(match);
      return found.length >= count ? found : undefined;
    }, what);
  }

  /** Drops the connection without a farewell: the broker publishes the will. */
  async close(): Promise<void> {
    await this.transport.close();
  }
}
