import { BehaviorSubject } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { REFUSED, startBroker, type BrokerHandle } from '../../cloud/hub/broker.js';
import { FakeClock } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { memoryLogger } from '../../shared/log.js';
import { brokerClients } from '../support/broker-clients.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };

/** BrokerOptions.nodesAdmitted$: a cloud whose hub does not lead refuses nodes, and drops them when it stops leading. */
describe('broker: nodes admitted only while the gate is open', () => {
  let broker: BrokerHandle;
  const counters = new Counters();
  const gate = new BehaviorSubject(false);
  const { connect, closeAll } = brokerClients(() => broker.url, passwords);
  afterEach(async () => {
    await closeAll();
    await broker.close();
  });


  it('refuses nodes with CONNACK 3 while closed, admits the hub always, and drops nodes when it closes', async () => {
    broker = await startBroker({ port: 0, authenticate: (u, p) => passwords[u] === p, logger: memoryLogger('broker'), counters, clock: new FakeClock(), nodesAdmitted$: gate });
    const hub = await connect('kedge-cloud-1', 'kedge-cloud');
    await expect(connect('edge-1', 'edge-1')).rejects.toThrow(/Server unavailable/);
    expect(counters.get(REFUSED, { reason: 'nodes-not-admitted' })).toBe(1);

    gate.next(true);
    const nodes = [await connect('edge-1', 'edge-1'), await connect('edge-2', 'edge-2')];
    const closed = nodes.map((n) => new Promise<void>((resolve) => n.once('close', () => resolve())));
    gate.next(false);
    await Promise.all(closed);
    expect(nodes.every((n) => !n.connected)).toBe(true);
    expect(hub.connected).toBe(true);
    await expect(connect('edge-1', 'edge-1')).rejects.toThrow(/Server unavailable/);
    expect(counters.get(REFUSED, { reason: 'nodes-not-admitted' })).toBe(2);
  });

  it('admits nodes when no gate is given', async () => {
    broker = await startBroker({ port: 0, authenticate: (u, p) => passwords[u] === p, logger: memoryLogger('broker'), clock: new FakeClock() });
    expect((await connect('edge-1', 'edge-1')).connected).toBe(true);
  });
});
