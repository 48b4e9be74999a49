import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import { deadBrokerUrl, EdgeFleet, seedCache } from '../edge-harness.js';
import { pod } from '../fixtures.js';

const S = 1000;

/** The edge's own Events, recorded with no cloud and kept in its data dir across restarts. */
describe('an edge offline records its Events durably', () => {
  let dir: string;
  let clock: FakeClock;
  let fleet: EdgeFleet;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-edge-events-'));
    clock = new FakeClock();
    fleet = new EdgeFleet(clock, silentLogger);
  });
  afterEach(async () => {
    await fleet.stopAll();
    await rm(dir, { recursive: true, force: true });
  });

  it('Starting at each start, Rebooted when the boot id changed; what was recorded before a restart is still pending after it', async () => {
    await seedCache(dir, [pod('web', 'u1', { containers: [{ name: 'c1', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent' }] })]);
    const brokerUrl = await deadBrokerUrl();
    const first = await fleet.start({ brokerUrl, dataDir: dir });
    await first.edged.sync();
    await clock.advance(S);
    await first.edged.sync();
    const before = first.events.entries().map((e) => e.event);
    expect(before.map((e) => e.reason)).toEqual(['Starting', 'Pulling', 'Pulled', 'Created', 'Started']);
    expect(before[0]).toMatchObject({ involvedObject: { kind: 'Node', name: 'edge-1', uid: 'edge-1' }, message: 'Starting kubelet.', type: 'Normal' });
    await fleet.stopAll();

    await clock.advance(60 * S);
    const second = await fleet.start({ brokerUrl, dataDir: dir, reboot: true });
    await second.edged.sync();
    const after = second.events.entries().map((e) => e.event);
    expect(after.slice(0, before.length)).toEqual(before); // same names, same timestamps
    const node = after.slice(before.length).filter((e) => e.involvedObject.kind === 'Node');
    expect(node.map((e) => [e.reason, e.type, e.message])).toEqual([
      ['Starting', 'Normal', 'Starting kubelet.'],
      ['Rebooted', 'Warning', `Node edge-1 has been rebooted, boot id: ${second.bootId}`],
    ]);
    expect(node[0]!.firstTimestamp).not.toBe(before[0]!.firstTimestamp);
  });

  it('a plain restart is no reboot', async () => {
    const brokerUrl = await deadBrokerUrl();
    await fleet.start({ brokerUrl, dataDir: dir });
    await fleet.stopAll();
    const again = await fleet.start({ brokerUrl, dataDir: dir });
    expect(again.events.entries().map((e) => e.event.reason)).toEqual(['Starting', 'Starting']);
  });
});
