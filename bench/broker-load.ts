import mqtt, { type MqttClient } from 'mqtt';
import { performance } from 'node:perf_hooks';
import { CLOUD_USERNAME, cloudClientId } from '../cloud/hub/acl.js';
import { realClock } from '../shared/clock.js';
import { topics } from '../shared/protocol/topics.js';
import { BENCH_SECRETS } from './broker-contenders.js';
import { processUsage } from './proc-stats.js';
import { percentile, round } from './stats.js';

/*
 * The load of the broker benchmark: the hub (kedge-cloud) and N nodes, each with its own
 * credential and topics as in the sync protocol, QoS 1, PAYLOAD_BYTES per message. A closed
 * loop: `inFlight` messages travel at once, and each delivery sends the next one on its slot,
 * so nothing queues without bound and the rate is what the broker delivers.
 */
export const PAYLOAD_BYTES = 300;

/**
 * fan-in: every node publishes to its own up topic, the hub hears them all (the status path);
 * fan-out: the hub publishes to every node's down topic (the path of pod changes);
 * one-node: a single node sends all of it (what a node's rate limit is for).
 */
export type Shape = 'fan-in' | 'fan-out' | 'one-node';
export const SHAPES: readonly Shape[] = ['fan-in', 'fan-out', 'one-node'];

export interface LoadSettings {
  nodes: number;
  inFlight: number;
  /** Seconds measured per shape, after the warm-up. */
  seconds: number;
  /** Messages sent before the measured seconds (at least half a second's): kedge's per-node burst, so that one-node measures the steady rate. */
  warmupMessages: number;
}

export interface ShapeFigures {
  msgsPerSec: number;
  /** CPU time of the broker's process per delivered message. */
  cpuMicrosPerMsg: number;
  /** From PUBLISH sent to delivery at the subscriber. */
  p50Ms: number;
  p99Ms: number;
}

interface Slot {
  client: MqttClient;
  topic: string;
}

const HEADER_BYTES = 16; // sent at (float64), slot (uint32), loop id (uint32)

export const benchNode = (i: number): string => `bench-${i}`;

async function connect(url: string, clientId: string, username: string, password: string): Promise<MqttClient> {
  return mqtt.connectAsync(url, { clientId, username, password, clean: true, protocolVersion: 4, keepalive: 60, reconnectPeriod: 0, connectTimeout: 10_000 });
}

/** The hub and the nodes connected, subscribed as in the protocol, and the loops they run. */
export class BrokerLoad {
  private loopId = 0;
  private onDelivery: (payload: Buffer) => void = () => {};

  private constructor(
    private readonly hub: MqttClient,
    private readonly nodes: MqttClient[],
    private readonly settings: LoadSettings,
  ) {
    const deliver = (_topic: string, payload: Buffer): void => this.onDelivery(payload);
    for (const client of [hub, ...nodes]) client.on('message', deliver);
  }

  static async connect(url: string, settings: LoadSettings): Promise<BrokerLoad> {
    // The hub first: kedge's broker admits nodes only once a hub listens to their up topics.
    const hub = await connect(url, cloudClientId('bench'), CLOUD_USERNAME, BENCH_SECRETS.hub);
    await hub.subscribeAsync(topics.allUp, { qos: 1 });
    const nodes = await Promise.all(Array.from({ length: settings.nodes }, async (_, i) => {
      const node = await connect(url, benchNode(i), benchNode(i), BENCH_SECRETS.edge);
      await node.subscribeAsync(topics.down(benchNode(i)), { qos: 1 });
      return node;
    }));
    return new BrokerLoad(hub, nodes, settings);
  }

  async close(): Promise<void> {
    await Promise.all([this.hub, ...this.nodes].map((c) => c.endAsync(true)));
  }

  /** Runs `shape` on the broker of process `pid`: warm-up, then `seconds` measured. */
  async run(shape: Shape, pid: number): Promise<ShapeFigures> {
    const slots = this.slots(shape);
    const loop = ++this.loopId;
    const payload = Buffer.alloc(PAYLOAD_BYTES);
    const warmup = this.settings.warmupMessages;
    let sent = 0;
    let measuring = false;
    let stopped = false;
    let inFlight = 0;
    let delivered = 0;
    const latencies: number[] = [];
    let drained: (() => void) | undefined;
    let warmedUp: (() => void) | undefined;
    const send = (slot: number): void => {
      const { client, topic } = slots[slot]!;
      const message = Buffer.from(payload);
      message.writeDoubleLE(performance.now(), 0);
      message.writeUInt32LE(slot, 8);
      message.writeUInt32LE(loop, 12);
      inFlight++;
      sent++;
      client.publish(topic, message, { qos: 1 });
      if (sent >= warmup) warmedUp?.();
    };
    this.onDelivery = (message) => {
      if (message.length < HEADER_BYTES || message.readUInt32LE(12) !== loop) return;
      inFlight--;
      if (measuring) {
        delivered++;
        latencies.push(performance.now() - message.readDoubleLE(0));
      }
      if (!stopped) send(message.readUInt32LE(8));
      else if (inFlight === 0) drained?.();
    };
    const warm = new Promise<void>((resolve) => (warmedUp = resolve));
    for (let slot = 0; slot < slots.length; slot++) send(slot);
    await Promise.all([warm, wait(500)]);
    const cpu0 = (await processUsage(pid)).cpuSeconds;
    const t0 = performance.now();
    measuring = true;
    await wait(this.settings.seconds * 1000);
    measuring = false;
    const elapsed = (performance.now() - t0) / 1000;
    const cpu = (await processUsage(pid)).cpuSeconds - cpu0;
    stopped = true;
    if (inFlight > 0) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), wait(30_000)]);
    return {
      msgsPerSec: Math.round(delivered / elapsed),
      cpuMicrosPerMsg: round((cpu * 1e6) / Math.max(1, delivered), 1),
      p50Ms: round(percentile(latencies, 50), 2),
      p99Ms: round(percentile(latencies, 99), 2),
    };
  }

  /** Who publishes where, one entry per message in flight. */
  private slots(shape: Shape): Slot[] {
    const { inFlight } = this.settings;
    const nodes = this.nodes;
    return Array.from({ length: inFlight }, (_, slot): Slot => {
      if (shape === 'fan-out') return { client: this.hub, topic: topics.down(benchNode(slot % nodes.length)) };
      const i = shape === 'one-node' ? 0 : slot % nodes.length;
      return { client: nodes[i]!, topic: topics.up(benchNode(i)) };
    });
  }
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => realClock.setTimer(ms, resolve));
}
