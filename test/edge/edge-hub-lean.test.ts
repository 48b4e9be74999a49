import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EDGE_ACCEPTS, EdgeHub, HELLO_RETRY_MS } from '../../edge/hub/edge-hub.js';
import { FakeClock } from '../../shared/clock.js';
import { memoryLogger } from '../../shared/log.js';
import { encode } from '../../shared/protocol/codec.js';
import type { HelloMessage, UpDraft } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';
import { CloudDouble } from '../support/memory-peers.js';
import { MemorySync } from '../support/memory-sync.js';
import { pass, runUntil } from '../support/settle.js';

const NODE = 'edge-1';
const status: UpDraft = {
  type: 'podStatus',
  ref: { kind: 'Pod', namespace: 'default', name: 'web', uid: '7b7dc473-dcbc-4ef1-b1d6-4da82dc498a1' },
  body: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-12-03T16:46:43.032Z' }], podIP: '127.64.0.44', qosClass: 'BestEffort' },
  statusVersion: 1,
} as UpDraft;

describe('the edge hub and the lean forms: it offers them, and compresses only for a cloud that takes them', () => {
  let sync: MemorySync;
  let clock: FakeClock;
  let cloud: CloudDouble;
  let hub: EdgeHub;

  beforeEach(async () => {
    clock = new FakeClock();
    sync = new MemorySync({ clock, timing: defaultTiming });
    cloud = await CloudDouble.connect(sync, NODE);
    hub = new EdgeHub({ nodeName: NODE, transport: sync.node(NODE), epoch: 'e1', bootId: 'b1', clock, logger: memoryLogger('edge'), holds: () => [] });
    hub.inbound$.subscribe(); // decodes what comes down, as the edge's session does
    hub.start();
  });
  afterEach(async () => {
    await hub.stop();
    await cloud.close();
    await sync.close();
  });

  const hellos = (): HelloMessage[] => cloud.received.filter((m): m is HelloMessage => m.type === 'hello');
  const sendStatus = async (): Promise<string> => {
    const id = await hub.send(status);
    await cloud.expect((m) => m.id === id, 1, 'the status');
    return id;
  };
  /** The broker goes and comes back: a new session, a new hello. */
  const newSession = async (): Promise<void> => {
    const before = hellos().length;
    await cloud.close();
    sync.broker.stop();
    await runUntil(clock, () => !hub.connectivity.connected, 'offline');
    sync.broker.start();
    const old = cloud;
    cloud = await CloudDouble.connect(sync, NODE);
    cloud.received.push(...old.received);
    await runUntil(clock, () => hellos().length > before, 'the next hello');
  };

  it('says hello offering the lean forms, uncompressed; compresses once the cloud says it takes them', async () => {
    const [hello] = await cloud.expect<HelloMessage>((m) => m.type === 'hello', 1, 'hello');
    expect(hello!.body.accepts).toEqual([...EDGE_ACCEPTS]);
    expect(cloud.compressed.has(hello!.id)).toBe(false);
    expect(cloud.compressed.has(await sendStatus())).toBe(false); // nothing said yet
    await cloud.send({ type: 'synced', parentId: hello!.id, body: { applies: 0, deletes: 0, accepts: ['deflate-d1'] } });
    await runUntil(clock, async () => cloud.compressed.has(await sendStatus()), 'a compressed status');
  });

  it('compresses for a cloud that sent it a compressed payload, even before its synced', async () => {
    await cloud.expect((m) => m.type === 'hello', 1, 'hello');
    const ack = cloud.stamper.stamp({ type: 'ack', parentId: 'x'.repeat(80) });
    await cloud.sendRaw(encode(ack, true));
    await runUntil(clock, async () => cloud.compressed.has(await sendStatus()), 'a compressed status');
  });

  it('says its next hello compressed to a cloud that took that, and again uncompressed when no synced answers it (an older cloud came back)', async () => {
    const [first] = await cloud.expect<HelloMessage>((m) => m.type === 'hello', 1, 'hello');
    await cloud.send({ type: 'synced', parentId: first!.id, body: { applies: 0, deletes: 0, accepts: ['deflate-d1'] } });
    await runUntil(clock, async () => cloud.compressed.has(await sendStatus()), 'a compressed status');
    await newSession();
    const second = hellos().at(-1)!;
    expect(cloud.compressed.has(second.id)).toBe(true);
    await pass(clock, HELLO_RETRY_MS / 2);
    expect(hellos().at(-1)).toBe(second);
    expect(cloud.compressed.has(await sendStatus())).toBe(true); // still the last cloud's forms
    await pass(clock, HELLO_RETRY_MS / 2);
    await runUntil(clock, () => hellos().length > 2, 'the hello again');
    const third = hellos().at(-1)!;
    expect(cloud.compressed.has(third.id)).toBe(false);
    expect(cloud.compressed.has(await sendStatus())).toBe(false);
  });

  it('does not say it again when the compressed hello is answered', async () => {
    const [first] = await cloud.expect<HelloMessage>((m) => m.type === 'hello', 1, 'hello');
    await cloud.send({ type: 'synced', parentId: first!.id, body: { applies: 0, deletes: 0, accepts: ['deflate-d1'] } });
    await runUntil(clock, async () => cloud.compressed.has(await sendStatus()), 'a compressed status');
    await newSession();
    const second = hellos().at(-1)!;
    await cloud.send({ type: 'synced', parentId: second.id, body: { applies: 0, deletes: 0, accepts: ['deflate-d1'] } });
    await pass(clock, HELLO_RETRY_MS * 2);
    expect(hellos().at(-1)).toBe(second);
  });
});
