import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCloud, type Cloud } from '../../cloud/main.js';
import { FakeClock } from '../../shared/clock.js';
import { isKedgeError } from '../../shared/errors.js';
import { CLOUD_PASSWORD, MemorySync } from '../support/memory-sync.js';
import { runUntil } from '../support/settle.js';

/** Where the cloud is told its external broker is; the in-memory broker stands in for it. */
const EXTERNAL_URL = 'mqtt://broker.example:1883';

describe('the broker component with an external broker', () => {
  let dir: string | undefined;
  let cloud: Cloud | undefined;
  let sync: MemorySync | undefined;
  afterEach(async () => {
    await cloud?.stop();
    await sync?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    cloud = sync = dir = undefined;
  });

  it("reports the hub's connection to it, and is stopped where it runs", async () => {
    const clock = new FakeClock();
    const external = (sync = new MemorySync({ clock }));
    dir = await mkdtemp(join(tmpdir(), 'kedge-parts-'));
    // The external broker knows the cloud by the password it was configured with.
    const transport = (identity: { clientId: string; username: string }) => external.transport({ ...identity, password: CLOUD_PASSWORD });
    cloud = await startCloud({ dataDir: dir, apiPort: 0, mqttPort: 0, brokerUrl: EXTERNAL_URL, transport, store: 'memory', clock });
    const state = () => cloud!.components.list().find((s) => s.name === 'broker');
    expect(state()).toMatchObject({ running: true, healthy: true, stoppable: false, message: 'ok' });
    const err = await cloud.components.stop('broker').catch((e: unknown) => e);
    expect(isKedgeError(err, 'BadRequest')).toBe(true);
    expect((err as Error).message).toBe(`broker cannot be stopped: the cloud uses an external broker (${EXTERNAL_URL}): stop it where it runs`);

    external.broker.stop();
    await runUntil(clock, () => state()?.healthy === false, 'the hub to lose the broker');
    expect(state()).toMatchObject({ running: true, message: `not connected to the broker at ${EXTERNAL_URL}` });
  });
});
