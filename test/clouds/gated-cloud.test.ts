import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { BehaviorSubject } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFUSED } from '../../cloud/hub/broker.js';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { FakeClock, realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

/** startCloud's nodesAdmitted$ reaches the embedded broker: what a standby cloud's hub elector will feed. */
describe('a cloud whose broker admits nodes only while told to', () => {
  const clock = new FakeClock(realClock.now());
  const admitted = new BehaviorSubject(false);
  let dir: string;
  let cloud: Cloud;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-gated-'));
    cloud = await startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, store: 'memory', clock, logger: silentLogger, nodesAdmitted$: admitted });
  });
  afterAll(async () => {
    await cloud?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const connectNode = (): Promise<MqttClient> =>
    connectAsync(cloud.brokerUrl, { clientId: 'edge-1', username: 'edge-1', password: cloud.credentials.edge, protocolVersion: 4, reconnectPeriod: 0 });

  it('refuses a node while closed, admits it when open, and drops it when it closes again', async () => {
    await expect(connectNode()).rejects.toThrow(/Server unavailable/);
    expect(cloud.counters.get(REFUSED, { reason: 'nodes-not-admitted' })).toBe(1);
    admitted.next(true);
    const node = await connectNode();
    const closed = new Promise<void>((resolve) => node.once('close', () => resolve()));
    admitted.next(false);
    await closed;
    expect(node.connected).toBe(false);
    await node.endAsync(true);
  });
});
