import type { Cloud, CloudOptions } from '../cloud/main.js';
import type { EdgeOptions } from '../edge/main.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/log.js';
import type { Timing } from '../shared/timing.js';
import type { Transport, TransportIdentity } from '../shared/transport.js';
import { startLinkProxy, type LinkProxy } from './link-proxy.js';
import { MemoryBroker } from './memory-broker.js';

/** How a local cluster's hub and edges reach each other, and how a node's cable is pulled. */
export interface ClusterWiring {
  /** What the cloud is started with. */
  readonly cloud: Pick<CloudOptions, 'mqttPort' | 'inProcessBroker'>;
  /** How edge `node` reaches the cloud's broker. */
  edge(node: string, cloud: Cloud): Promise<Pick<EdgeOptions, 'brokerUrl' | 'transport'>>;
  /** Pulls `node`'s cable: nothing passes either way, and neither end is told. */
  cut(node: string): void;
  /** Plugs it back in: what waited arrives; a connection that lost an end meanwhile is reset. */
  heal(node: string): void;
  /** Resets `node`'s connections (an RST to both ends); the cable stays as it is. */
  reset(node: string): void;
  /** The link proxy in front of the broker for `node` (mqtt with links only). */
  link(node: string): LinkProxy;
  /** A client (not started) of the in-memory broker as `identity` (memory only). */
  client(identity: TransportIdentity): Transport;
  close(): Promise<void>;
}

export interface WiringDeps {
  clock: Clock;
  timing: Timing;
  logger: Logger;
}

/** A name for the in-memory broker in logs and status; nothing dials it. */
const MEMORY_BROKER_URL = 'memory://kedge-cluster';

/**
 * One MemoryBroker on the cluster's clock, made by the cloud with its own admission: the hub
 * and every edge connect through it, without a socket. Every client's jitter is fixed.
 */
export function memoryWiring({ clock, timing, logger }: WiringDeps): ClusterWiring {
  let made: MemoryBroker | undefined;
  const broker = (): MemoryBroker => {
    if (!made) throw new Error('the cloud has not made its broker yet');
    return made;
  };
  const client = (identity: TransportIdentity): Transport =>
    broker().connect({
      ...identity,
      keepaliveMs: timing.keepaliveMs,
      connectTimeoutMs: Math.max(1000, timing.connectTimeoutMs), // as edge/main.ts gives the MqttTransport
      reconnectMinMs: timing.reconnectMinMs,
      reconnectMaxMs: timing.reconnectMaxMs,
      clock,
      random: () => 0.5,
      logger: logger.child(identity.clientId),
    });
  return {
    cloud: {
      mqttPort: 0,
      inProcessBroker: (access) => {
        made = new MemoryBroker({ ...access, clock });
        return { url: MEMORY_BROKER_URL, transport: client, stop: () => made!.stop(), start: () => made!.start() };
      },
    },
    edge: async (_node, cloud) => ({ brokerUrl: cloud.brokerUrl, transport: client }),
    cut: (node) => broker().cut(node),
    heal: (node) => broker().heal(node),
    reset: (node) => broker().reset(node),
    link: () => {
      throw new Error("link proxies are for transport 'mqtt': cut, heal and reset the node on the cluster instead");
    },
    client,
    close: async () => {},
  };
}

/**
 * The embedded broker on port 0 over TCP; with `links`, each edge through a link proxy of its
 * own, which cut, heal and reset act on.
 */
export function mqttWiring({ clock, logger }: WiringDeps, links: boolean): ClusterWiring {
  const proxies = new Map<string, LinkProxy>();
  const link = (node: string): LinkProxy => {
    const proxy = proxies.get(node);
    if (!proxy) throw new Error(links ? `no link for ${node}` : `no link for ${node}: start the cluster with links: true`);
    return proxy;
  };
  const linkUrl = async (node: string, brokerUrl: string): Promise<string> => {
    if (!proxies.has(node)) {
      const broker = new URL(brokerUrl);
      const target = { host: broker.hostname, port: Number(broker.port) };
      proxies.set(node, await startLinkProxy({ name: node, target, clock, logger }));
    }
    return `mqtt://127.0.0.1:${link(node).port}`;
  };
  return {
    cloud: { mqttPort: 0 },
    edge: async (node, cloud) => ({ brokerUrl: links ? await linkUrl(node, cloud.brokerUrl) : cloud.brokerUrl }),
    cut: (node) => void link(node).cut(),
    heal: (node) => void link(node).heal(),
    reset: (node) => void link(node).reset(),
    link,
    client: () => {
      throw new Error("in-memory clients are for transport 'memory': over MQTT, dial the cloud's brokerUrl");
    },
    close: async () => {
      for (const proxy of proxies.values()) await proxy.close();
    },
  };
}
