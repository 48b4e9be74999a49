import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { startNodeHeartbeat } from '../../edge/edged/node-heartbeat.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import type { UpDraft } from '../../shared/protocol/envelope.js';
import type { Node } from '../../shared/types.js';

describe('node heartbeat', () => {
  const setup = () => {
    const clock = new FakeClock(0);
    const connectivity$ = new BehaviorSubject({ connected: false });
    const sent: string[] = [];
    let labels: Record<string, string> = { a: '1' };
    const stop = startNodeHeartbeat({
      connectivity$,
      isConnected: () => connectivity$.value.connected,
      send: async (draft: UpDraft) => (sent.push(draft.type), 'id'),
      buildNode: (): Node => ({
        metadata: { name: 'edge-1', labels },
        status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: new Date(clock.now()).toISOString() }] },
      }),
      clock,
      intervalMs: 10_000,
      reportMs: 60_000,
      logger: silentLogger,
    });
    return { clock, connectivity$, sent, stop, relabel: (l: Record<string, string>) => (labels = l) };
  };

  it('sends the full status on connect, then small heartbeats, and the full status again after reportMs', async () => {
    const h = setup();
    h.connectivity$.next({ connected: true });
    await h.clock.advance(50_000);
    expect(h.sent).toEqual(['nodeStatus', 'heartbeat', 'heartbeat', 'heartbeat', 'heartbeat', 'heartbeat']);
    await h.clock.advance(10_000);
    expect(h.sent.at(-1)).toBe('nodeStatus');
    h.stop();
  });

  it('sends the full status as soon as it changes, and nothing while offline', async () => {
    const h = setup();
    await h.clock.advance(20_000);
    expect(h.sent).toEqual([]);
    h.connectivity$.next({ connected: true });
    await h.clock.advance(10_000);
    h.relabel({ a: '2' });
    await h.clock.advance(10_000);
    expect(h.sent).toEqual(['nodeStatus', 'heartbeat', 'nodeStatus']);
    h.stop();
  });
});
