import { randomUUID } from 'node:crypto';
import { cloudClientId, CLOUD_USERNAME } from '../../cloud/hub/acl.js';
import type { Clock } from '../../shared/clock.js';
import { silentLogger, type Logger } from '../../shared/log.js';
import { MqttTransport, type MqttTransportOptions } from '../../shared/mqtt-transport.js';
import { defaultTiming, type Timing } from '../../shared/timing.js';
import type { Transport, TransportIdentity } from '../../shared/transport.js';

export interface TestTransportOptions {
  clock: Clock;
  timing?: Timing;
  logger?: Logger;
}

/** TEST HELPER. An MqttTransport to `brokerUrl` as `identity`, timed by `timing`, with a fixed jitter. */
export function mqttTransport(brokerUrl: string, identity: TransportIdentity, options: TestTransportOptions & Partial<MqttTransportOptions>): MqttTransport {
  const { timing = defaultTiming, logger = silentLogger, ...rest } = options;
  return new MqttTransport({
    brokerUrl,
    ...identity,
    keepaliveMs: timing.keepaliveMs,
    reconnectMinMs: timing.reconnectMinMs,
    reconnectMaxMs: timing.reconnectMaxMs,
    logger,
    random: () => 0.5,
    ...rest,
  });
}

/** TEST HELPER. What startCloudHub needs to reach the broker at `brokerUrl` as the cloud (password `cloud-secret` unless given). */
export function cloudLink(brokerUrl: string, options: TestTransportOptions & { password?: string }): { transport: Transport; epoch: string } {
  const epoch = randomUUID().slice(0, 8);
  const { password = 'cloud-secret', ...rest } = options;
  return { transport: mqttTransport(brokerUrl, { clientId: cloudClientId(epoch), username: CLOUD_USERNAME, password }, rest), epoch };
}
