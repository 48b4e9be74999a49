import type { RetainedMessage } from '../../shared/transport.js';

/** The MQTT 3.1.1 packets the in-memory broker and its clients exchange (QoS 1 only, clean sessions). */
export type ClientPacket =
  | { cmd: 'connect'; clientId: string; username: string; password: string; keepaliveSeconds: number; will?: RetainedMessage }
  | { cmd: 'subscribe'; id: number; filters: readonly string[] }
  | { cmd: 'publish'; id: number; topic: string; payload: Buffer; retain: boolean }
  | { cmd: 'pingreq' };

export type BrokerPacket =
  | { cmd: 'connack'; returnCode: number }
  | { cmd: 'suback'; id: number; granted: readonly boolean[] }
  | { cmd: 'puback'; id: number }
  | { cmd: 'publish'; topic: string; payload: Buffer; retain: boolean }
  | { cmd: 'pingresp' };

/** CONNACK return codes of MQTT 3.1.1. */
export const CONNACK = { accepted: 0, identifierRejected: 2, unavailable: 3, badCredentials: 4 } as const;

/** About what a packet takes on the wire: enough to bound what waits for a client. */
export function packetBytes(packet: ClientPacket | BrokerPacket): number {
  if (packet.cmd !== 'publish') return 4;
  return 6 + Buffer.byteLength(packet.topic) + packet.payload.length;
}
