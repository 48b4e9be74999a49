import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEdge, type EdgeHandle } from '../../edge/main.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { decodeUp } from '../../shared/protocol/codec.js';
import type { Transport } from '../../shared/transport.js';
import type { Pod } from '../../shared/types.js';
import { Cluster } from '../../sim/local-cluster.js';
import { pass, runUntil } from '../support/settle.js';

const NODE = 'idle-1';
const PODS = 10;
const pods = { resource: 'pods', namespace: 'default' };
const pod = (i: number): Pod => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: `idle-p${i}`, labels: { app: 'scale' } },
  spec: { nodeName: NODE, containers: [{ name: 'main', image: 'kedge.io/bench:1' }] },
});

interface Published {
  type: string;
  /** Its MQTT 3.1.1 PUBLISH (QoS 1) on the wire: fixed header (2 bytes; 3 from 128 on), topic, packet id, payload. */
  bytes: number;
}

/** `transport`, noting every message it publishes on the node's up topic. */
function tapped(transport: Transport, sent: Published[]): Transport {
  return new Proxy(transport, {
    get(target, key) {
      if (key !== 'publish') {
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (topic: string, payload: Buffer) => {
        const decoded = decodeUp(payload);
        const body = 2 + Buffer.byteLength(topic) + 2 + payload.length;
        if (topic.endsWith('/up')) sent.push({ type: decoded.ok ? decoded.message.type : 'malformed', bytes: body + (body < 128 ? 2 : 3) });
        return target.publish(topic, payload);
      };
    },
  });
}

/** Messages and bytes by message type. */
function breakdown(sent: Published[]): Record<string, { n: number; bytes: number }> {
  const out: Record<string, { n: number; bytes: number }> = {};
  for (const { type, bytes } of sent) {
    const row = (out[type] ??= { n: 0, bytes: 0 });
    row.n++;
    row.bytes += bytes;
  }
  return out;
}

/**
 * What an idle edge sends up (docs/protocol.md, "What an idle edge sends"): a hollow edge as
 * `kedge fleet` runs it, 10 pods Running, nothing changing, over 10 minutes of cluster time.
 */
describe('the idle uplink', () => {
  let cluster: Cluster<FakeClock> | undefined;
  let edge: EdgeHandle | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await edge?.stop();
    await cluster?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
    edge = cluster = dir = undefined;
  });

  it('is a heartbeat every 10 s, the node status and the usage every 5 min, and nothing else: under 100 bit/s', async () => {
    const c = (cluster = await Cluster.start({ clock: new FakeClock(), nodes: 0 }));
    dir = await mkdtemp(join(tmpdir(), 'kedge-idle-'));
    const sent: Published[] = [];
    edge = await startEdge({
      nodeName: NODE, brokerUrl: c.cloud.brokerUrl, token: c.cloud.credentials.edge, dataDir: dir, localApiPort: null,
      transport: (identity) => tapped(c.transport(identity), sent),
      // As sim/fleet.ts starts a hollow edge.
      durableWrites: false, serviceProxy: false, usage: 'simulated', simVolumes: 'memory', networkPlugin: 'memory', eventOutbox: 'memory', podCIDR: '10.244.1.0/24',
      clock: c.clock, timing: c.timing, logger: silentLogger, random: () => 0.5,
    });
    for (let i = 0; i < PODS; i++) await c.api.create(pods, pod(i));
    const running = async (): Promise<boolean> => (await c.api.list<Pod>(pods)).items.filter((p) => p.status?.phase === 'Running').length === PODS;
    await runUntil(c.clock, running, `${PODS} pods Running`);
    await pass(c.clock, 30_000, 1_000); // the last statuses and Events acked

    sent.length = 0;
    const minutes = 10;
    await pass(c.clock, minutes * 60_000, 1_000);

    const { heartbeat, nodeStatus, usage, ...rest } = breakdown(sent);
    expect(rest).toEqual({}); // no pod status, Event or ack: nothing changed
    expect(heartbeat!.n + nodeStatus!.n).toBeGreaterThanOrEqual(minutes * 6 - 1); // the Lease renewed every 10 s, as the kubelet does
    expect(nodeStatus!.n).toBeGreaterThanOrEqual(minutes / 5 - 1); // the full status at least every 5 min
    expect(nodeStatus!.n).toBeLessThanOrEqual(minutes / 5 + 1);
    expect(usage!.n).toBeGreaterThanOrEqual(minutes / 5 - 1); // still at least every 5 min
    expect(usage!.n).toBeLessThanOrEqual(minutes / 5 + 1); // unchanged: every 5 min, not every 15 s
    const bitsPerSecond = (sent.reduce((sum, p) => sum + p.bytes, 0) * 8) / (minutes * 60);
    expect(bitsPerSecond, JSON.stringify(breakdown(sent))).toBeLessThan(100);
  });
});
