import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { startBroker, THROTTLED, type BrokerHandle } from '../../cloud/hub/broker.js';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { Counters } from '../../shared/counters.js';
import { silentLogger } from '../../shared/log.js';
import { topics } from '../../shared/protocol/topics.js';
import { waitFor } from '../support/wait.js';
import { brokerClients } from '../support/broker-clients.js';

const passwords: Record<string, string> = { 'kedge-cloud': 'cloud-secret', 'edge-1': 'one', 'edge-2': 'two' };
const BURST = 5;

/**
 * The broker's rate limit is per credential (per node), not per connection: a node that
 * spends its burst and reconnects, or opens a new connection that takes over the old one,
 * does not get a fresh burst; another node's budget is its own.
 */
describe('broker: the rate limit is per node, not per connection', () => {
  let broker: BrokerHandle;
  let counters: Counters;
  let clock: FakeClock;
  const { connect, closeAll } = brokerClients(() => broker.url, passwords);
  let heard: string[];

  afterEach(async () => {
    await closeAll();
    await broker.close();
  });

  async function start(): Promise<void> {
    counters = new Counters();
    clock = new FakeClock();
    broker = await startBroker({ port: 0, authenticate: (u, p) => passwords[u] === p, logger: silentLogger, counters, clock, limits: { publishesPerSecond: 10, publishBurst: BURST } });
    const hub = await connect('kedge-cloud-t', 'kedge-cloud');
    heard = [];
    hub.on('message', (t, p) => heard.push(`${t.split('/')[2]} ${p.toString()}`));
    await hub.subscribeAsync(topics.allUp, { qos: 1 });
  }
  const burst = (c: MqttClient, node: string, from: number, count = BURST): void => {
    for (let i = from; i < from + count; i++) c.publish(topics.up(node), `m${i}`, { qos: 0 });
  };
  const from = (node: string): string[] => heard.filter((h) => h.startsWith(`${node} `));

  it('a reconnect does not refill the budget', async () => {
    await start();
    const first = await connect('edge-1', 'edge-1');
    burst(first, 'edge-1', 0);
    await waitFor(() => from('edge-1').length === BURST, 'the first burst');
    await first.endAsync();
    const second = await connect('edge-1', 'edge-1');
    burst(second, 'edge-1', BURST);
    await waitFor(() => counters.get(THROTTLED) === 1, 'throttled at once');
    await wallDelay(50);
    expect(from('edge-1')).toHaveLength(BURST);
    await clock.advance(1000); // 10 more at 10/s
    await waitFor(() => from('edge-1').length === 2 * BURST, 'the rest, once the budget allows');
  });

  it('the hub is not limited (as kube exempts system:masters from API priority and fairness); a node past its burst is', async () => {
    await start();
    const edge = await connect('edge-1', 'edge-1');
    const atEdge: string[] = [];
    edge.on('message', (_t, p) => atEdge.push(p.toString()));
    await edge.subscribeAsync(topics.down('edge-1'), { qos: 1 });
    const hub = await connect('kedge-cloud-h', 'kedge-cloud');
    for (let i = 0; i < 20 * BURST; i++) hub.publish(topics.down('edge-1'), `d${i}`, { qos: 0 });
    await waitFor(() => atEdge.length === 20 * BURST, "twenty times a node's burst from the hub, the clock standing still");
    expect(counters.get(THROTTLED)).toBe(0);
    burst(edge, 'edge-1', 0, 2 * BURST);
    await waitFor(() => counters.get(THROTTLED) === 1, 'the node is throttled');
    await wallDelay(50);
    expect(from('edge-1')).toHaveLength(BURST);
  });

  it('a second connection (taking over the first) spends the same budget; another node has its own', async () => {
    await start();
    const first = await connect('edge-1', 'edge-1');
    burst(first, 'edge-1', 0);
    await waitFor(() => from('edge-1').length === BURST, 'the first burst');
    const second = await connect('edge-1', 'edge-1'); // the broker closes `first`
    burst(second, 'edge-1', BURST);
    const other = await connect('edge-2', 'edge-2');
    burst(other, 'edge-2', 0);
    await waitFor(() => from('edge-2').length === BURST, "edge-2's burst is its own");
    await wallDelay(50);
    expect(from('edge-1')).toHaveLength(BURST);
    expect(counters.get(THROTTLED)).toBe(1);
  });
});
