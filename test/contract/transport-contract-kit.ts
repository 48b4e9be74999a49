import type { Authenticate } from '../../cloud/hub/broker.js';
import type { ReconnectTiming, SessionSpec, Transport, TransportIdentity } from '../../shared/transport.js';

/** What the suite asks of a client; the factory adds its clock, logger and where the broker is. */
export type ContractClient = TransportIdentity & ReconnectTiming;

/** One broker with its clients' cables, and the time they run on. */
export interface TransportUnderTest {
  /** A client, not started. A node's connects over its own cable (named by its client id), which cut/heal/reset act on. */
  client(client: ContractClient): Promise<Transport>;
  /** Pulls the node's cable: nothing passes either way, and neither end is told. */
  cut(node: string): void | Promise<void>;
  /** Plugs it back in. */
  heal(node: string): void | Promise<void>;
  /** Resets the node's connections (an RST to both ends). */
  reset(node: string): void | Promise<void>;
  /** Lets `ms` of the clients' and the broker's time go by. */
  pass(ms: number): Promise<void>;
  /** Lets time go by until `check()` holds; fails naming `what` once `withinMs` went by without it. */
  until(check: () => boolean, what: string, withinMs: number): Promise<void>;
  /** The clients' clock, in epoch ms. */
  now(): number;
  /** Stops the broker and whatever the factory started (the suite closes its clients first). */
  cleanup(): Promise<void>;
}

/** Starts a broker that admits clients with `authenticate` (the embedded broker's ACL applies). */
export type TransportFactory = (broker: { authenticate: Authenticate }) => Promise<TransportUnderTest>;

export const KEEPALIVE_MS = 1000;
export const RECONNECT_MIN_MS = 200;
export const RECONNECT_MAX_MS = 800;
/** Long enough for a reconnect that nothing stops, short enough to be the test's bound. */
export const CONNECT_WITHIN_MS = 2 * RECONNECT_MAX_MS + KEEPALIVE_MS;
/** How long the suite waits to be sure something does not happen. */
export const QUIET_MS = 300;

const PASSWORDS: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };
export const CLOUD_CLIENT_ID = 'kedge-cloud-1';

export interface Seen {
  topic: string;
  payload: string;
  retained: boolean;
}

/** The suite's side of a factory: its clients (closed after each test) and every attempt to connect. */
export class TransportHarness {
  /** Every CONNECT the broker checked, by user name, on the clients' clock. */
  readonly attempts: { username: string; at: number }[] = [];
  private readonly made: Transport[] = [];
  private env!: TransportUnderTest;

  static async open(factory: TransportFactory): Promise<TransportHarness> {
    const harness = new TransportHarness();
    harness.env = await factory({
      authenticate: (username, password) => {
        harness.attempts.push({ username, at: harness.env.now() });
        return PASSWORDS[username] === password;
      },
    });
    return harness;
  }

  get broker(): TransportUnderTest {
    return this.env;
  }

  cloud(overrides: Partial<ContractClient> = {}): Promise<Transport> {
    return this.client({ clientId: CLOUD_CLIENT_ID, username: 'kedge-cloud', password: PASSWORDS['kedge-cloud']!, ...overrides });
  }

  node(node: string, overrides: Partial<ContractClient> = {}): Promise<Transport> {
    return this.client({ clientId: node, username: node, password: PASSWORDS[node] ?? 'none', ...overrides });
  }

  /** Starts `transport` and waits for its first session. */
  async connected(transport: Transport, spec: SessionSpec): Promise<Transport> {
    transport.start(spec);
    await this.env.until(() => transport.connectivity.connected, 'connected', CONNECT_WITHIN_MS);
    return transport;
  }

  /** Every message `transport` receives from now on, payloads as text. */
  collect(transport: Transport): Seen[] {
    const seen: Seen[] = [];
    transport.inbound$.subscribe((m) => seen.push({ topic: m.topic, payload: m.payload.toString(), retained: m.retained }));
    return seen;
  }

  async close(): Promise<void> {
    await Promise.all(this.made.splice(0).map((t) => t.close()));
    await this.env.cleanup();
  }

  private async client(identity: Pick<ContractClient, 'clientId' | 'username' | 'password'> & Partial<ContractClient>): Promise<Transport> {
    const transport = await this.env.client({ keepaliveMs: KEEPALIVE_MS, reconnectMinMs: RECONNECT_MIN_MS, reconnectMaxMs: RECONNECT_MAX_MS, random: () => 0.5, ...identity });
    this.made.push(transport);
    return transport;
  }
}

/** Whether a promise settled, and how, without awaiting it. */
export function watch(promise: Promise<unknown>): { state: 'pending' | 'resolved' | 'rejected' } {
  const seen = { state: 'pending' as 'pending' | 'resolved' | 'rejected' };
  promise.then(
    () => (seen.state = 'resolved'),
    () => (seen.state = 'rejected'),
  );
  return seen;
}
