import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { startTestBroker, type TestBroker } from '../support/test-broker.js';
import { waitFor } from '../support/wait.js';

describe('the broker component with an external broker', () => {
  let dir: string | undefined;
  let cloud: Cloud | undefined;
  let broker: TestBroker | undefined;
  afterEach(async () => {
    await cloud?.stop();
    await broker?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    cloud = broker = dir = undefined;
  });

  it("reports the hub's connection to it, and is stopped where it runs", async () => {
    broker = await startTestBroker();
    dir = await mkdtemp(join(tmpdir(), 'kedge-parts-'));
    cloud = await startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, brokerUrl: broker.url, store: 'memory', clock: new FakeClock() });
    const state = () => cloud!.components.list().find((s) => s.name === 'broker');
    expect(state()).toMatchObject({ running: true, healthy: true, stoppable: false, message: 'ok' });
    const err = await cloud.components.stop('broker').catch((e: unknown) => e);
    expect(isKedgeError(err, 'BadRequest')).toBe(true);
    expect((err as Error).message).toBe(`broker cannot be stopped: the cloud uses an external broker (${broker.url}): stop it where it runs`);

    await broker.close();
    await waitFor(() => state()?.healthy === false, 'the hub to lose the broker');
    expect(state()).toMatchObject({ running: true, message: `not connected to the broker at ${broker.url}` });
  });
});
