import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MemoryEventOutbox } from '../../../edge/events/event-outbox.js';
import { EdgeEventRecorder } from '../../../edge/events/event-recorder.js';
import { EventSender } from '../../../edge/events/event-sender.js';
import { nodeRef } from '../../../edge/events/event-types.js';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import { EnvelopeStamper, type EventMessage, type UpMessage } from '../../../shared/protocol/envelope.js';
import type { Connectivity } from '../../../shared/transport.js';
import { edgeEvent } from './event-fixtures.js';

const WINDOW = 2000;

function setup(batch?: number) {
  const clock = new FakeClock();
  const outbox = new MemoryEventOutbox();
  const sent: EventMessage[] = [];
  const state = { connected: true, failing: false };
  const stamper = new EnvelopeStamper('edge-1', 'e1');
  const hub = {
    stamp: (draft: Parameters<EnvelopeStamper['stamp']>[0]) => stamper.stamp(draft) as UpMessage,
    publish: async (m: UpMessage) => {
      if (state.failing) throw new Error('no broker');
      sent.push(m as EventMessage);
    },
  };
  const sender = new EventSender({ outbox, hub, isConnected: () => state.connected, clock, timing: { statusResendMs: WINDOW }, logger: silentLogger, ...(batch ? { batch } : {}) });
  const recorder = new EdgeEventRecorder({ outbox, clock, logger: silentLogger, onRecorded: () => sender.flush() });
  const names = () => sent.map((m) => m.body.name);
  return { clock, outbox, sent, state, sender, recorder, names };
}

describe('EventSender', () => {
  it('sends each pending event as an `event` message and forgets it when the cloud acks it', async () => {
    const { clock, outbox, sent, sender } = setup();
    outbox.put(edgeEvent('a'));
    sender.flush();
    await clock.advance(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ type: 'event', body: { name: 'a', count: 1 } });
    expect(sender.onAck(sent[0]!.id)).toBe(true);
    expect(outbox.entries()).toEqual([]);
    expect(sender.onAck('unknown')).toBe(false);
  });

  it('sends an unacked event again after a back-off that doubles', async () => {
    const { clock, outbox, sender, names } = setup();
    sender.start();
    outbox.put(edgeEvent('a'));
    sender.flush();
    const start = clock.now();
    const times: number[] = names().length === 1 ? [0] : [];
    for (let t = 0; t < 15 * WINDOW; t += 100) {
      const before = names().length;
      await clock.advance(100);
      if (names().length > before) times.push(clock.now() - start);
    }
    sender.stop();
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    expect(gaps.slice(0, 3).map((g) => Math.round(g / WINDOW))).toEqual([1, 2, 4]);
    expect(outbox.entries()).toHaveLength(1);
  });

  it('a publish that fails is retried', async () => {
    const { clock, outbox, state, sender, names } = setup();
    sender.start();
    state.failing = true;
    outbox.put(edgeEvent('a'));
    sender.flush();
    await clock.advance(WINDOW);
    state.failing = false;
    await clock.advance(WINDOW);
    sender.stop();
    expect(names()).toContain('a');
  });

  it('offline, events wait with their own timestamps and repeats count up; a new session sends them oldest first at a bounded rate', async () => {
    const { clock, sent, state, sender, recorder } = setup(2);
    sender.start();
    state.connected = false;
    const node = nodeRef('edge-1');
    const times: string[] = [];
    for (const reason of ['A', 'B', 'A', 'C', 'D', 'E']) {
      recorder.record(node, 'Normal', reason, `${reason} happened`);
      times.push(new Date(clock.now()).toISOString());
      await clock.advance(3_600_000); // an hour apart, through the night
    }
    expect(sent).toEqual([]);

    const sessions = new Subject<Connectivity>();
    const stop = sender.followSessions(sessions);
    state.connected = true;
    sessions.next({ connected: true, since: clock.now() });
    await clock.advance(0);
    expect(sent.map((m) => m.body.reason)).toEqual(['A', 'B']); // at most 2 per window
    for (const m of sent.splice(0)) sender.onAck(m.id);
    await clock.advance(WINDOW);
    for (const m of sent.splice(0)) sender.onAck(m.id);
    await clock.advance(WINDOW);
    const last = sent.map((m) => m.body);
    stop();
    sender.stop();
    expect(last.map((e) => e.reason)).toEqual(['E']);
    expect(last[0]).toMatchObject({ firstTimestamp: times[5]!.replace('.000Z', 'Z') });
  });

  it('the repeat of an event recorded offline goes out under its first name, with its count and both timestamps', async () => {
    const { clock, sent, state, sender, recorder } = setup();
    state.connected = false;
    const node = nodeRef('edge-1');
    recorder.record(node, 'Warning', 'Rebooted', 'same');
    const first = new Date(clock.now()).toISOString().replace('.000Z', 'Z');
    await clock.advance(60_000);
    recorder.record(node, 'Warning', 'Rebooted', 'same');
    state.connected = true;
    sender.flush();
    await clock.advance(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toMatchObject({ count: 2, firstTimestamp: first, lastTimestamp: '2026-01-01T00:01:00Z' });
  });
});
