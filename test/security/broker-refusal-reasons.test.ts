import { connectAsync, type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED, startBroker, type Authenticate, type BrokerHandle } from '../../cloud/hub/broker.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one' };

/** Every CONNACK refusal of the broker is counted by reason and logged (sampled), those that are no one's fault included. */
describe('broker: refusals at CONNECT are counted with their reason', () => {
  let broker: BrokerHandle;
  let counters: Counters;
  let log: ReturnType<typeof memoryLogger>;
  const clients: MqttClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await broker.close();
  });

  async function start(authenticate: Authenticate): Promise<void> {
    counters = new Counters();
    log = memoryLogger('broker');
    broker = await startBroker({ port: 0, authenticate, logger: log, counters, clock: new FakeClock(), nodesWaitForCloud: true });
  }
  const connect = async (clientId: string, username: string): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { clientId, username, password: passwords[username], protocolVersion: 4, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };
  const refusedLines = (): string[] => log.lines.filter((l) => l.includes('broker refused a client'));

  it('no-hub-yet: a node while no hub listens (CONNACK 3), admitted once the hub does', async () => {
    await start((u, p) => passwords[u] === p);
    for (let i = 0; i < 3; i++) await expect(connect('edge-1', 'edge-1')).rejects.toThrow(/Server unavailable/);
    expect(counters.get(REFUSED, { reason: 'no-hub-yet' })).toBe(3);
    expect(refusedLines()).toEqual([expect.stringContaining('broker refused a client: no cloud hub is listening yet {"reason":"no-hub-yet","clientId":"edge-1","username":"edge-1","peer":"127.0.0.1"}')]);

    const hub = await connect('kedge-cloud-1', 'kedge-cloud');
    await hub.subscribeAsync(topics.allUp, { qos: 1 });
    await connect('edge-1', 'edge-1');
    expect(counters.get(REFUSED, { reason: 'no-hub-yet' })).toBe(3);
  });

  it('auth-error: authentication that fails rather than says no (CONNACK 4), with what went wrong', async () => {
    await start(() => Promise.reject(new Error('the node credentials are not loaded')));
    await expect(connect('edge-1', 'edge-1')).rejects.toThrow(/Bad username or password/);
    expect(counters.get(REFUSED, { reason: 'auth-error' })).toBe(1);
    expect(counters.get(REFUSED, { reason: 'bad-credentials' })).toBe(0);
    expect(refusedLines()).toEqual([expect.stringContaining('broker refused a client: authentication failed: the node credentials are not loaded {"reason":"auth-error","clientId":"edge-1"')]);
  });
});
