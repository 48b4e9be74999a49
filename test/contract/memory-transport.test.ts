import { FakeClock } from '../../shared/clock.js';
import { MemoryBroker } from '../../sim/memory-broker.js';
import { transportContract } from './transport.contract.js';

/** FakeClock steps while waiting for a condition. */
const STEP_MS = 10;

transportContract('MemoryTransport', async ({ authenticate }) => {
  const clock = new FakeClock();
  const broker = new MemoryBroker({ clock, authenticate });
  return {
    client: async (client) => broker.connect({ ...client, clock }),
    cut: (node) => broker.cut(node),
    heal: (node) => broker.heal(node),
    reset: (node) => broker.reset(node),
    pass: (ms) => clock.advance(ms),
    until: async (check, what, withinMs) => {
      for (let waited = 0; !check(); waited += STEP_MS) {
        if (waited >= withinMs) throw new Error(`not within ${withinMs} ms: ${what}`);
        await clock.advance(STEP_MS);
      }
    },
    now: () => clock.now(),
    cleanup: async () => {
      broker.stop();
      if (clock.pending > 0) throw new Error(`${clock.pending} timers left on the clock after every client closed`);
    },
  };
});
