import { connectAsync, type MqttClient } from 'mqtt';
import { decodeDown, encode } from '../../shared/protocol/codec.js';
import { EnvelopeStamper, type DownMessage, type UpDraft, type UpMessage } from '../../shared/protocol/envelope.js';
import { topics } from '../../shared/protocol/topics.js';
import { waitFor } from './wait.js';

/** The client id the broker lets a user connect with: a node's name; `kedge-cloud-<n>` for the cloud. */
export function clientIdOf(username: string, n = 0): string {
  return username === 'kedge-cloud' ? `kedge-cloud-${n}` : username;
}

/**
 * TEST DOUBLE. A raw MQTT client playing an edge node: it records every down message and
 * publishes whatever the test tells it to, with no protocol logic of its own.
 */
export class MqttEdge {
  readonly received: DownMessage[] = [];
  readonly stamper: EnvelopeStamper;

  private constructor(
    readonly node: string,
    readonly client: MqttClient,
    epoch: string,
  ) {
    this.stamper = new EnvelopeStamper(node, epoch);
    client.on('message', (_topic, payload) => {
      const decoded = decodeDown(payload);
      if (decoded.ok) this.received.push(decoded.message);
    });
  }

  static async connect(url: string, node: string, password: string, epoch = `${node}-e1`): Promise<MqttEdge> {
    const client = await connectAsync(url, {
      clientId: node, // a node's client id is its node name
      username: node,
      password,
      protocolVersion: 4,
      clean: true,
      reconnectPeriod: 0,
      will: { topic: topics.presence(node), payload: encode({ online: false, epoch }), qos: 1, retain: true },
    });
    const edge = new MqttEdge(node, client, epoch);
    await client.subscribeAsync(topics.down(node), { qos: 1 });
    return edge;
  }

  get epoch(): string {
    return this.stamper.epoch;
  }

  async send(draft: UpDraft): Promise<UpMessage> {
    const message = this.stamper.stamp(draft) as UpMessage;
    await this.client.publishAsync(topics.up(this.node), encode(message), { qos: 1 });
    return message;
  }

  async presence(online: boolean): Promise<void> {
    await this.client.publishAsync(topics.presence(this.node), encode({ online, epoch: this.epoch }), { qos: 1, retain: true });
  }

  /** Waits until `count` down messages match, then returns them. */
  async expect(match: (m: DownMessage) => boolean, count = 1, what = 'down messages'): Promise<DownMessage[]> {
    return waitFor(() => {
      const found = this.received.filter(match);
      return found.length >= count ? found : undefined;
    }, what);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
