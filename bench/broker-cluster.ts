import { realClock } from '../shared/clock.js';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import { aedesOnRedis, natsCluster, type Contender } from './broker-cluster-contenders.js';
import { percentile, round } from './stats.js';

/*
 * Which broker cluster kedge runs: aedes members on redis-server, or nats-server's MQTT. A
 * publisher on one member, a subscriber (persistent session, QoS 1) on another: the QoS 1
 * round trip (PUBLISH to PUBACK) and delivery across members one message at a time, a burst's
 * throughput, and what the subscriber gets of what was acknowledged while its member was dead.
 * Short by design (seconds): `node dist/bench/broker-cluster.js [rounds]`.
 */

const TOPIC = 'kedge/v1/bench/down';

function connect(url: string, clientId: string, clean: boolean): Promise<MqttClient> {
  const client = mqtt.connect(url, { clientId, clean, protocolVersion: 4, reconnectPeriod: 0, keepalive: 10, connectTimeout: 10_000 });
  return new Promise((resolve, reject) => {
    client.once('connect', () => resolve(client));
    client.once('error', reject);
  });
}

async function measure(contender: Contender, rounds: number): Promise<Record<string, unknown>> {
  const [a, b, c] = contender.urls;
  const step = (what: string): boolean => process.stderr.write(`${contender.name}: ${what}\n`);
  step('connecting');
  const subscriber = await connect(b!, 'bench-sub', false);
  await subscriber.subscribeAsync(TOPIC, { qos: 1 });
  const publisher = await connect(a!, 'bench-pub', true);
  const arrived = new Map<string, number>();
  let onArrival: (() => void) | undefined;
  subscriber.on('message', (_topic, payload) => {
    arrived.set(payload.toString(), performance.now());
    onArrival?.();
  });
  const until = (n: number): Promise<void> => new Promise((resolve) => {
    onArrival = () => arrived.size >= n && resolve();
    onArrival();
  });

  const acks: number[] = [];
  const deliveries: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const delivered = until(arrived.size + 1);
    await publisher.publishAsync(TOPIC, `rt-${i}`, { qos: 1 });
    acks.push(performance.now() - t0);
    await delivered;
    deliveries.push(arrived.get(`rt-${i}`)! - t0);
  }

  step(`round trips: ack p50 ${round(percentile(acks, 50), 2)} ms p99 ${round(percentile(acks, 99), 2)} ms; delivery p50 ${round(percentile(deliveries, 50), 2)} ms p99 ${round(percentile(deliveries, 99), 2)} ms`);
  const burst = rounds * 10;
  const t0 = performance.now();
  const all = until(arrived.size + burst);
  await Promise.all(Array.from({ length: burst }, (_, i) => publisher.publishAsync(TOPIC, `burst-${i}`, { qos: 1 })));
  await all;
  const perSecond = burst / ((performance.now() - t0) / 1000);

  step(`burst: ${Math.round(perSecond)} messages/s`);
  // The subscriber's member dies; what is acknowledged meanwhile must reach it on another member.
  subscriber.removeAllListeners('close');
  await contender.kill(1);
  subscriber.end(true);
  const outage = 100;
  step('subscriber member killed');
  for (let i = 0; i < outage; i++) await publisher.publishAsync(TOPIC, `outage-${i}`, { qos: 1 });
  step('published during the outage');
  let received = 0;
  const afterOutage = await connect(c ?? a!, 'bench-sub', false).then(async (back) => {
    back.on('message', (_t, payload) => payload.toString().startsWith('outage-') && received++);
    const deadline = performance.now() + 5_000;
    while (received < outage && performance.now() < deadline) await new Promise<void>((r) => realClock.setTimer(50, r));
    await back.endAsync(true);
    return `${received}/${outage}`;
  }, (err: Error) => `the subscriber could not reconnect: ${err.message}`);
  await publisher.endAsync(true);
  return {
    cluster: contender.name,
    qos1AckMs: { p50: round(percentile(acks, 50), 2), p99: round(percentile(acks, 99), 2) },
    deliveryAcrossMembersMs: { p50: round(percentile(deliveries, 50), 2), p99: round(percentile(deliveries, 99), 2) },
    burstMessagesPerSecond: Math.round(perSecond),
    ackedDuringOutageThenReceived: afterOutage,
  };
}

async function run(contender: Contender, rounds: number): Promise<void> {
  try {
    console.log(JSON.stringify(await measure(contender, rounds)));
  } finally {
    await contender.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rounds = Number(process.argv[2] ?? 300);
  const only = process.argv[3];
  if (only !== 'nats') await run(await aedesOnRedis(3), rounds);
  if (only !== 'aedes') await run(await natsCluster(3), rounds);
}
