import { FakeClock } from '../../shared/clock.js';
import { MemoryBroker, type MemoryBrokerOptions, type MemoryClientOptions } from '../../sim/memory-broker.js';
import { topics } from '../../shared/protocol/topics.js';
import type { Transport } from '../../shared/transport.js';

const PASSWORDS: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };
const STEP_MS = 10;

/** A MemoryBroker on a FakeClock, its clients (closed by `close`), and every user name it checked. */
export function memoryWorld(options: Partial<MemoryBrokerOptions> = {}) {
  const clock = new FakeClock();
  const checked: string[] = [];
  const broker = new MemoryBroker({
    clock,
    authenticate: (username, password) => {
      checked.push(username);
      return PASSWORDS[username] === password;
    },
    ...options,
  });
  const made: Transport[] = [];
  const client = (clientId: string, username = clientId, extra: Partial<MemoryClientOptions> = {}): Transport => {
    const transport = broker.connect({ clientId, username, password: PASSWORDS[username] ?? 'none', keepaliveMs: 1000, reconnectMinMs: 200, reconnectMaxMs: 800, clock, random: () => 0.5, ...extra });
    made.push(transport);
    return transport;
  };
  const cloud = (clientId = 'kedge-cloud-1'): Transport => client(clientId, 'kedge-cloud');
  const collect = (transport: Transport): string[] => {
    const seen: string[] = [];
    transport.inbound$.subscribe((m) => seen.push(m.payload.toString()));
    return seen;
  };
  return {
    clock,
    broker,
    checked,
    client,
    cloud,
    /** Payloads `transport` receives from now on, as text. */
    collect,
    /** A cloud client started on `subscriptions` (every presence by default), and what it hears. */
    listeningCloud: (subscriptions: string[] = [topics.allPresence]): { cloud: Transport; heard: string[] } => {
      const listener = cloud();
      const heard = collect(listener);
      listener.start({ subscriptions });
      return { cloud: listener, heard };
    },
    /** Advances the clock in small steps until `check()` holds. */
    until: async (check: () => boolean, what: string, withinMs = 5000): Promise<void> => {
      for (let waited = 0; !check(); waited += STEP_MS) {
        if (waited >= withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
        await clock.advance(STEP_MS);
      }
    },
    close: async (): Promise<void> => {
      await Promise.all(made.map((t) => t.close()));
      broker.stop();
    },
  };
}

export type MemoryWorld = ReturnType<typeof memoryWorld>;
