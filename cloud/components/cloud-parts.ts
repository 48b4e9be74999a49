import type { Clock } from '../../shared/clock.js';
import type { TransportFactory } from '../../shared/transport.js';
import { startBroker, type BrokerOptions, type CloudHubHandle, type InProcessBroker, type InProcessBrokerMaker } from '../hub/index.js';
import type { GatedStore } from '../store/gated-store.js';
import type { ComponentSet } from './component-set.js';
import type { ComponentHandle, Health } from './component.js';
import type { HubLead } from './hub-lead.js';

/**
 * The cloud's own parts as components, beside the control plane (control-plane.ts): the
 * composition root starts and closes them; the set shows them and switches those that can be.
 */
export const APISERVER = 'apiserver';
export const STORE = 'store';
export const BROKER = 'broker';
export const HUB = 'hub';

export const STORE_DOWN_MESSAGE = 'the store is down (stopped with kedge component stop store)';

/** The handle of a part that cannot be stopped: its owner closes it. */
const ownedElsewhere: ComponentHandle = { close: async () => {} };
const notRestartable = (name: string) => async (): Promise<never> => {
  throw new Error(`${name} cannot be started here`);
};

/** The apiserver: up while it serves. */
export function addApiServer(set: ComponentSet): void {
  set.adopt({
    name: APISERVER,
    unstoppable: 'every request goes through it, a start request too: nothing could start it again (stop the whole cloud instead)',
    start: notRestartable(APISERVER),
  }, ownedElsewhere);
}

/** A store's link to a server it can drop and make again (etcd's client). */
export interface StoreConnection {
  disconnect(): Promise<void>;
  reconnect(): Promise<void>;
}

/**
 * The store, etcd's part: stopped, every storage call fails with 503 and open watches end
 * (with etcd, the cloud also disconnects from it); started, all is there again (with etcd,
 * once it connects again). Running pods are untouched (the edges run what they have), but
 * nothing new can be decided.
 */
export function addStore(set: ComponentSet, gate: GatedStore, connection?: StoreConnection): void {
  const running: ComponentHandle = {
    close: async () => {
      gate.down(STORE_DOWN_MESSAGE);
      await connection?.disconnect();
    },
  };
  set.adopt({
    name: STORE,
    start: async () => {
      await connection?.reconnect();
      gate.up();
      return running;
    },
  }, running);
}

/** The broker the cloud runs (not an external one); `transport` is the hub's client of an in-process one. */
export interface OwnBroker {
  url: string;
  /** For the cloud's shutdown: closes whichever broker runs then. */
  close(): Promise<void>;
  transport?: TransportFactory;
}

/** Adds the cloud's own broker as the `broker` component: the in-process one `inProcess` makes, or else the embedded one. */
export async function addOwnBroker(set: ComponentSet, options: BrokerOptions & { clock: Clock }, inProcess?: InProcessBrokerMaker): Promise<OwnBroker> {
  return inProcess ? addInProcessBroker(set, inProcess(options)) : addEmbeddedBroker(set, options);
}

/**
 * Starts the embedded broker (a failure to listen fails the caller) and adds it. Stopping it
 * drops every client and forgets retained messages; starting it listens again on the same port.
 */
async function addEmbeddedBroker(set: ComponentSet, options: BrokerOptions): Promise<OwnBroker> {
  let broker = await startBroker(options);
  const port = broker.port;
  set.adopt({ name: BROKER, start: async () => (broker = await startBroker({ ...options, port })) }, broker);
  return { url: broker.url, close: () => broker.close() };
}

/** An in-process broker, already taking clients: stopped and started as the embedded one is. */
function addInProcessBroker(set: ComponentSet, broker: InProcessBroker): OwnBroker {
  const running: ComponentHandle = { close: async () => broker.stop() };
  set.adopt({
    name: BROKER,
    start: async () => {
      await broker.start();
      return running;
    },
  }, running);
  return { url: broker.url, close: running.close, transport: broker.transport };
}

/** An external broker (`--broker URL`): shown as the hub's connection to it, and stopped where it runs. */
export function addExternalBroker(set: ComponentSet, url: string, hub: CloudHubHandle, lead?: HubLead): void {
  set.adopt({
    name: BROKER,
    unstoppable: `the cloud uses an external broker (${url}): stop it where it runs`,
    start: notRestartable(BROKER),
    health: () => lead?.notRunning() ?? brokerLinkHealth(hub, url),
  }, ownedElsewhere);
}

/**
 * The hub: running while the cloud runs, healthy while it is subscribed at the broker. With
 * leader election (`lead`), it runs only on the cloud that leads the hub's Lease; elsewhere it
 * stands by, healthy, naming the leader.
 */
export function addHub(set: ComponentSet, hub: CloudHubHandle, brokerUrl: string, lead?: HubLead): void {
  set.adopt({
    name: HUB,
    unstoppable: "it holds every edge's sync session: cut an edge's link or stop the broker to part the edges from the cloud",
    start: notRestartable(HUB),
    health: () => lead?.notRunning() ?? brokerLinkHealth(hub, brokerUrl, lead ? ' (leader)' : ''),
  }, ownedElsewhere);
}

function brokerLinkHealth(hub: CloudHubHandle, url: string, okSuffix = ''): Health {
  const link = hub.brokerLink();
  return link.up ? { healthy: true, message: `ok${okSuffix}`, since: link.since } : { healthy: false, message: `not connected to the broker at ${url}`, since: link.since };
}
