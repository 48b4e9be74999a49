import { describe, expect, it } from 'vitest';
import { planStatusSends, type LastSend } from '../../edge/hub/status-plan.js';
import { StatusSender } from '../../edge/hub/status-sender.js';
import { CacheDocument, emptyCacheData } from '../../edge/metamanager/cache-document.js';
import type { OutboxEntry } from '../../edge/metamanager/local-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { EnvelopeStamper, type UpDraft, type UpMessage } from '../../shared/protocol/envelope.js';
import { defaultTiming } from '../../shared/timing.js';

const entry = (uid: string, version: number): OutboxEntry => ({ ref: { kind: 'Pod', name: uid, namespace: 'default', uid }, status: { phase: 'Running' }, version });
const uids = (entries: OutboxEntry[]) => entries.map((e) => e.ref.uid);

describe('planStatusSends', () => {
  const base = { lastSend: new Map<string, LastSend>(), sentAt: [] as number[], now: 10_000, windowMs: 2000, batch: 3, resendAfterMs: (tries: number) => 2000 * 2 ** (tries - 1) };
  const outbox = [entry('a', 1), entry('b', 2), entry('c', 3), entry('d', 4)];

  it('sends the oldest first, at most `batch`', () => {
    expect(uids(planStatusSends({ ...base, outbox }))).toEqual(['a', 'b', 'c']);
  });

  it('counts what went out within the window, and only that', () => {
    expect(uids(planStatusSends({ ...base, outbox, sentAt: [8_001, 9_000] }))).toEqual(['a']);
    expect(uids(planStatusSends({ ...base, outbox, sentAt: [8_001, 9_000, 9_999] }))).toEqual([]);
    expect(uids(planStatusSends({ ...base, outbox, sentAt: [7_000, 8_000] }))).toEqual(['a', 'b', 'c']);
  });

  it('waits longer before each re-send of the same version', () => {
    const lastSend = new Map<string, LastSend>([['a', { version: 1, at: 7_000, tries: 2 }]]);
    expect(uids(planStatusSends({ ...base, outbox: [entry('a', 1)], lastSend }))).toEqual([]);
    expect(uids(planStatusSends({ ...base, outbox: [entry('a', 1)], lastSend, now: 11_000 }))).toEqual(['a']);
  });

  it('skips a status sent lately; re-sends it after the window, after statuses never sent', () => {
    const lastSend = new Map<string, LastSend>([
      ['a', { version: 1, at: 9_500, tries: 1 }],
      ['b', { version: 2, at: 7_000, tries: 1 }],
      ['c', { version: 2, at: 9_900, tries: 1 }], // an older version of c went out: the newer one is fresh
    ]);
    expect(uids(planStatusSends({ ...base, outbox, lastSend, batch: 10 }))).toEqual(['c', 'd', 'b']);
    expect(uids(planStatusSends({ ...base, outbox, lastSend, batch: 2 }))).toEqual(['c', 'd']);
  });
});

describe('StatusSender', () => {
  function setup(batch = 100) {
    const clock = new FakeClock();
    const writes: number[] = [];
    let connected = true;
    const cache = new CacheDocument(emptyCacheData(), async () => {
      await new Promise((r) => setImmediate(r));
      writes.push(cache.outbox().length);
    });
    const sent: { message: UpMessage; writesBefore: number }[] = [];
    const stamper = new EnvelopeStamper('edge-1', 'e');
    const hub = {
      stamp: (draft: UpDraft) => stamper.stamp(draft) as UpMessage,
      publish: async (message: UpMessage) => void sent.push({ message, writesBefore: writes.length }),
    };
    const sender = new StatusSender({ cache, hub, isConnected: () => connected, clock, timing: defaultTiming, logger: silentLogger, batch });
    sender.start();
    const queue = (uid: string) => cache.queueStatus({ kind: 'Pod', name: uid, uid }, { phase: 'Running' }, clock.now());
    return { clock, cache, sender, sent, writes, queue, setConnected: (c: boolean) => (connected = c) };
  }

  it('sends a status only after it is on disk, with its outbox version as statusVersion', async () => {
    const { sender, sent, queue, clock } = setup();
    const queued = queue('u1');
    sender.flush();
    await clock.advance(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.writesBefore).toBe(1);
    expect(sent[0]!.message).toMatchObject({ type: 'podStatus', ref: { uid: 'u1' }, statusVersion: queued.version });
  });

  it('sends nothing while disconnected; keeps the rate limit across a reconnect', async () => {
    const { sender, sent, queue, clock, setConnected } = setup(2);
    for (const uid of ['a', 'b', 'c', 'd']) queue(uid);
    setConnected(false);
    sender.flush();
    await clock.advance(0);
    expect(sent).toHaveLength(0);
    setConnected(true);
    sender.flush();
    await clock.advance(0);
    expect(sent).toHaveLength(2);
    sender.reset(); // a new session: a and b count as not sent, but the window still does
    sender.flush();
    await clock.advance(defaultTiming.statusResendMs - 1);
    expect(sent).toHaveLength(2);
    await clock.advance(1);
    await clock.advance(defaultTiming.statusResendMs);
    expect(sent.map((s) => (s.message as { ref: { uid: string } }).ref.uid)).toEqual(['a', 'b', 'a', 'b', 'c', 'd']);
  });

  it('an ack removes the status it carried; a newer status stays queued', async () => {
    const { sender, sent, queue, clock, cache } = setup();
    queue('u1');
    sender.flush();
    await clock.advance(0);
    queue('u1');
    expect(sender.onAck(sent[0]!.message.id)).toBe(true);
    expect(cache.outbox()).toHaveLength(1);
    sender.flush();
    await clock.advance(0);
    expect(sender.onAck(sent[1]!.message.id)).toBe(true);
    expect(cache.outbox()).toEqual([]);
    expect(sender.onAck('unknown')).toBe(false);
  });

  it('learns that the cloud acks slowly and waits for it instead of sending everything again', async () => {
    const { sender, sent, queue, clock } = setup();
    const window = defaultTiming.statusResendMs;
    const ackAfter = async (ms: number, index: number) => {
      await clock.advance(ms);
      expect(sender.onAck(sent[index]!.message.id)).toBe(true);
    };
    for (const [i, uid] of ['a', 'b', 'c'].entries()) {
      queue(uid);
      sender.flush();
      await clock.advance(0);
      await ackAfter(window * 0.9, i); // acks take most of the window, with little variation
    }
    expect(sent).toHaveLength(3);
    queue('d');
    sender.flush();
    await clock.advance(0);
    await clock.advance(window * 1.5); // with a fixed window of statusResendMs it would be sent twice by now
    expect(sent).toHaveLength(4);
    await ackAfter(0, 3);
    await clock.advance(window * 8);
    expect(sent).toHaveLength(4);
  });

  it('sends again, later each time, what the cloud never acks', async () => {
    const { sender, sent, queue, clock } = setup();
    queue('a');
    sender.flush();
    await clock.advance(0);
    const window = defaultTiming.statusResendMs;
    const sendTimes: number[] = [];
    for (let t = 0; t < window * 16; t += window / 2) {
      await clock.advance(window / 2);
      if (sent.length > sendTimes.length + 1) sendTimes.push(clock.now());
    }
    const gaps = sendTimes.map((t, i) => t - (sendTimes[i - 1] ?? 0)).slice(1);
    expect(sendTimes.length).toBeGreaterThanOrEqual(3);
    for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThan(i === 0 ? window : gaps[i - 1]!);
  });
});
