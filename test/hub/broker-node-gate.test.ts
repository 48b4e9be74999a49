import { connectAsync, type MqttClient } from 'mqtt';
import { BehaviorSubject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED, startBroker, type BrokerHandle } from '../../cloud/hub/broker.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };

/** BrokerOptions.nodesAdmitted$: a cloud whose hub does not lead refuses nodes, and drops them when it stops leading. */
describe('broker: nodes admitted only while the gate is open', () => {
  let broker: BrokerHandle;
  const counters = new Counters();
  const gate = new BehaviorSubject(false);
  const clients: MqttClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.endAsync(true)));
    await broker.close();
  });

  const connect = async (clientId: string, username: string): Promise<MqttClient> => {
    const c = await connectAsync(broker.url, { clientId, username, password: passwords[username], protocolVersion: 4, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  };

  it('refuses nodes with CONNACK 3 while closed, admits the hub always, and drops nodes when it closes', async () => {
    broker = await startBroker({ port: 0, authenticate: (u, p) => passwords[u] === p, logger: memoryLogger('broker'), counters, clock: new FakeClock(), nodesAdmitted$: gate });
    await connect('kedge-cloud-1', 'kedge-cloud');
    await expect(connect('edge-1', 'edge-1')).rejects.toThrow(/Server unavailable/);
    expect(counters.get(REFUSED, { reason: 'nodes-not-admitted' })).toBe(1);

    gate.next(true);
    const nodes = [await connect('edge-1', 'edge-1'), await connect('edge-2', 'edge-2')];
    const closed = nodes.map((n) => new Promise<void>((resolve) => n.once('close', () => resolve())));
    gate.next(false);
    await Promise.all(closed);
    expect(nodes.every((n) => !n.connected)).toBe(true);
    expect(clients[0]!.connected).toBe(true);
    await expect(connect('edge-1', 'edge-1')).rejects.toThrow(/Server unavailable/);
    expect(counters.get(REFUSED, { reason: 'nodes-not-admitted' })).toBe(2);
  });

  it('admits nodes when no gate is given', async () => {
    broker = await startBroker({ port: 0, authenticate: (u, p) => passwords[u] === p, logger: memoryLogger('broker'), clock: new FakeClock() });
    expect((await connect('edge-1', 'edge-1')).connected).toBe(true);
  });
});
