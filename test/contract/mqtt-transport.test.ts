import { startBroker } from '../../cloud/hub/broker.js';
import { realClock, wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { MqttTransport } from '../../shared/mqtt-transport.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { transportContract } from './transport.contract.js';

/** How often `until` looks again. */
const POLL_MS = 10;
/**
 * Real sockets on a busy machine: `until` allows this many times the contract's bound (and a
 * second more) before it fails. The cases' own checks on timing are left as they are.
 */
const SLACK = 3;

/**
 * The contract over real MQTT, on the wall clock (sockets need real time): the embedded broker
 * on port 0, and every client through a link proxy of its own (named by its client id), which
 * cut, heal and reset act on.
 */
transportContract('MqttTransport over the embedded broker', async ({ authenticate }) => {
  const broker = await startBroker({ port: 0, authenticate, logger: silentLogger, clock: realClock });
  const links = new Map<string, LinkProxy>();
  const link = async (name: string): Promise<LinkProxy> => {
    let proxy = links.get(name);
    if (!proxy) links.set(name, (proxy = await startLinkProxy({ name, target: { host: '127.0.0.1', port: broker.port }, clock: realClock, logger: silentLogger })));
    return proxy;
  };
  const existing = (name: string): LinkProxy => {
    const proxy = links.get(name);
    if (!proxy) throw new Error(`no client ${name} yet`);
    return proxy;
  };
  return {
    client: async (client) => new MqttTransport({ ...client, brokerUrl: `mqtt://127.0.0.1:${(await link(client.clientId)).port}`, clock: realClock, logger: silentLogger }),
    cut: (node) => void existing(node).cut(),
    heal: (node) => void existing(node).heal(),
    reset: (node) => void existing(node).reset(),
    pass: (ms) => wallDelay(ms),
    until: async (check, what, withinMs) => {
      const limit = SLACK * withinMs + 1000;
      for (const started = performance.now(); !check(); await wallDelay(POLL_MS)) {
        if (performance.now() - started > limit) throw new Error(`not within ${limit} ms: ${what}`);
      }
    },
    now: () => realClock.now(),
    cleanup: async () => {
      for (const proxy of links.values()) await proxy.close();
      await broker.close();
    },
  };
});
