import { connectAsync, type MqttClient } from 'mqtt';
import { decodePresence, decodeUp, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownDraft, type DownMessage, type Presence, type UpMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import { waitFor } from './wait.js';

/**
 * TEST DOUBLE. A raw MQTT client playing the cloud for one node: it records every up
 * message and presence payload, and publishes whatever the test tells it to.
 */
export class MqttCloud {
  readonly received: UpMessage[] = [];
  readonly presences: Presence[] = [];
  readonly stamper = new EnvelopeStamper('cloud', 'cloud-e1');

  private constructor(
    readonly node: string,
    readonly client: MqttClient,
  ) {
    client.on('message', (topic, payload) => {
      if (topic === topics.up(node)) {
        const decoded = decodeUp(payload);
        if (decoded.ok) this.received.push(decoded.message);
      } else if (topic === topics.presence(node)) {
        const decoded = decodePresence(payload);
        if (decoded.ok) this.presences.push(decoded.message);
      }
    });
  }

  static async connect(url: string, node: string): Promise<MqttCloud> {
    const client = await connectAsync(url, { clientId: `cloud-for-${node}`, protocolVersion: 4, clean: true, reconnectPeriod: 0 });
    const cloud = new MqttCloud(node, client);
    await client.subscribeAsync([topics.up(node), topics.presence(node)], { qos: 1 });
    return cloud;
  }

  async send(draft: DownDraft): Promise<DownMessage> {
    const message = this.stamper.stamp(draft) as DownMessage;
    await this.sendRaw(encode(message));
    return message;
  }

  async sendRaw(payload: Buffer | string): Promise<void> {
    await this.client.publishAsync(topics.down(this.node), payload, { qos: 1 });
  }

  /** Waits (on the wall clock: real sockets) until `count` up messages match; returns them. */
  expect<T extends UpMessage = UpMessage>(match: (m: UpMessage) => boolean, count = 1, what = 'up messages'): Promise<T[]> {
    return waitFor(() => {
      const found = this.received.filter(match);
      return found.length >= count ? (found as T[]) : undefined;
    }, what);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
