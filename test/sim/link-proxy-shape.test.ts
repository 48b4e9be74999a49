import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock, wallDelay } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { mulberry32 } from '../../shared/seeded-random.js';
import { NAMED_PROFILES, type LinkProfile } from '../../sim/link-shape/profile.js';
import { queueLimit } from '../../sim/link-shape/shaped-lane.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { waitFor } from '../support/wait.js';
import { dial, startFarEnd, type FarEnd, type Watched } from './tcp-fixtures.js';

/** Real time during which nothing may happen (socket I/O, not protocol timing). */
const QUIET_MS = 300;

const custom = (fields: Partial<LinkProfile>): LinkProfile => ({ ...NAMED_PROFILES.lan, name: 'custom', ...fields });

/** Text no shift or reordering of its chunks leaves unchanged. */
function pattern(bytes: number, seed: number): string {
  const random = mulberry32(seed);
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from({ length: bytes }, () => letters[Math.floor(random() * letters.length)]).join('');
}

describe('link proxy shaping (loopback sockets, fake clock)', () => {
  let far: FarEnd;
  let proxy: LinkProxy;
  let clock: FakeClock;
  const clients: Watched[] = [];

  const start = async (timeScale = 1): Promise<{ near: Watched; farSide: Watched }> => {
    clock = new FakeClock(0);
    far = await startFarEnd();
    proxy = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: far.port }, clock, logger: silentLogger, timeScale, random: mulberry32(1) });
    const near = await dial(proxy.port);
    clients.push(near);
    const farSide = await waitFor(() => far.accepted[0], 'the far end to accept');
    return { near, farSide };
  };
  /** Moves the fake clock on in steps, letting real I/O happen between them, until `done`. */
  const pump = async (done: () => boolean, stepMs: number, what: string): Promise<void> => {
    await waitFor(
      async () => {
        await clock.advance(stepMs);
        return done();
      },
      what,
      30_000,
      1,
    );
  };

  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    await proxy?.close();
    await far?.close();
    expect(clock.pending).toBe(0);
  });

  it('latency in cluster time: at time scale 10, 300 ms each way is 30 ms of the clock; counters count it', async () => {
    const { near, farSide } = await start(10);
    expect(proxy.shape(custom({ latencyMs: 300 })).profile).toMatchObject({ name: 'custom', latencyMs: 300 });
    near.socket.write('hello');
    await wallDelay(QUIET_MS);
    await clock.advance(29);
    expect(farSide.received()).toBe('');
    await clock.advance(1);
    await waitFor(() => farSide.received() === 'hello', 'the delayed chunk');
    farSide.socket.write('back');
    await wallDelay(QUIET_MS);
    expect(near.received()).toBe('');
    await clock.advance(30);
    await waitFor(() => near.received() === 'back', 'the delayed answer');
    expect(proxy.state()).toMatchObject({ bytesUp: 5, bytesDown: 4, delayedChunks: 2, delayedBytes: 9, droppedSegments: 0, queuedUp: 0, queuedDown: 0 });
  });

  it('under latency, jitter, loss and a rate cap every byte arrives once and in order, both ways', async () => {
    const { near, farSide } = await start();
    proxy.shape(custom({ latencyMs: 20, jitterMs: 10, lossPercent: 10, rateUpBps: 100_000_000, rateDownBps: 50_000_000, seed: 5 }));
    const up = pattern(1 << 20, 1);
    const down = pattern(1 << 20, 2);
    near.socket.write(up);
    farSide.socket.write(down);
    await pump(() => farSide.received().length >= up.length && near.received().length >= down.length, 50, 'every byte both ways');
    expect(farSide.received() === up).toBe(true);
    expect(near.received() === down).toBe(true);
    const s = proxy.state();
    expect(s).toMatchObject({ bytesUp: up.length, bytesDown: down.length, queuedUp: 0, queuedDown: 0 });
    expect(s.droppedSegments).toBeGreaterThan(0);
    expect(s.delayedBytes).toBe(up.length + down.length);
  });

  it("a full queue stops reading the sender (its window closes) instead of dropping: the proxy holds about the queue's worth", async () => {
    const { near, farSide } = await start();
    const rateUpBps = 800_000; // 100 kB/s: a one-second queue of 100 kB
    proxy.shape(custom({ rateUpBps }));
    const big = pattern(8 << 20, 3);
    near.socket.write(big);
    await wallDelay(QUIET_MS);
    const queued = proxy.state().queuedUp;
    expect(queued).toBeGreaterThan(0);
    // The fake clock stands still, so nothing drains: had the proxy kept reading, it would hold all 8 MiB.
    expect(queued).toBeLessThanOrEqual(queueLimit(rateUpBps) + (64 << 10));
    proxy.shape(custom({ rateUpBps: 10_000_000_000 }));
    await pump(() => farSide.received().length >= big.length, 100, 'the whole stream');
    expect(farSide.received() === big).toBe(true);
  });

  it("a rate cap is the link's: a second connection's byte waits behind the first's queue (one FIFO per direction)", async () => {
    const { near, farSide } = await start();
    proxy.shape(custom({ rateUpBps: 80_000 })); // 10 kB/s
    near.socket.write(pattern(10_000, 4));
    await waitFor(() => proxy.state().queuedUp === 10_000, 'the first connection queued');
    const other = await dial(proxy.port);
    clients.push(other);
    const otherFar = await waitFor(() => far.accepted[1], 'the second connection accepted');
    other.socket.write('x');
    await waitFor(() => proxy.state().queuedUp === 10_001, 'the second connection queued');
    await clock.advance(999);
    await wallDelay(QUIET_MS);
    // Its own cap would have sent it at once; the link's is busy with the first 10 kB for 1 s.
    expect(otherFar.received()).toBe('');
    await clock.advance(2);
    await waitFor(() => otherFar.received() === 'x' && farSide.received().length === 10_000, 'both, in the order they came');
  });

  it('clear: what is on its way arrives at once, in order, and later bytes pass unshaped', async () => {
    const { near, farSide } = await start();
    proxy.shape(custom({ latencyMs: 60_000 }));
    near.socket.write('slow,');
    await wallDelay(QUIET_MS);
    expect(proxy.state().queuedUp).toBe(5);
    expect(proxy.shape(undefined).profile).toBeUndefined();
    near.socket.write('fast');
    await waitFor(() => farSide.received() === 'slow,fast', 'both chunks, in order');
    expect(clock.pending).toBe(0);
  });

  it('a cut stops what is on its way too; heal delivers it, then what was held', async () => {
    const { near, farSide } = await start();
    proxy.shape(custom({ latencyMs: 100 }));
    near.socket.write('sent,');
    await wallDelay(QUIET_MS);
    proxy.cut();
    near.socket.write('held');
    await wallDelay(QUIET_MS);
    await clock.advance(500);
    expect(farSide.received()).toBe('');
    proxy.heal();
    await waitFor(() => farSide.received() === 'sent,', 'what was on its way');
    await clock.advance(100);
    await waitFor(() => farSide.received() === 'sent,held', 'what was held, shaped in turn');
  });

  it('a FIN follows the shaped bytes before it', async () => {
    const { near, farSide } = await start();
    proxy.shape(custom({ latencyMs: 1000 }));
    near.socket.end('last words');
    await wallDelay(QUIET_MS);
    expect(farSide.events).toEqual([]);
    await clock.advance(1000);
    await waitFor(() => farSide.events.includes('end') || undefined, 'the FIN');
    expect(farSide.received()).toBe('last words');
  });

  it('flap: cut and healed on schedule (cluster time); held bytes arrive on heal; stop ends it', async () => {
    const { near, farSide } = await start(10);
    expect(proxy.flap({ downMs: 5000, everyMs: 30_000 }).flap).toEqual({ downMs: 5000, everyMs: 30_000, phase: 'up', flaps: 0 });
    await clock.advance(2500);
    expect(proxy.state()).toMatchObject({ state: 'cut', flap: { phase: 'down', flaps: 1 } });
    near.socket.write('during the flap');
    await wallDelay(QUIET_MS);
    expect(farSide.received()).toBe('');
    await clock.advance(500);
    expect(proxy.state().state).toBe('up');
    await waitFor(() => farSide.received() === 'during the flap', 'the held bytes');
    await clock.advance(2500);
    expect(proxy.state().state).toBe('cut');
    expect(proxy.flap(undefined)).toMatchObject({ state: 'up' });
    expect(proxy.state().flap).toBeUndefined();
  });

  it('lan shapes nothing: the profile is shown, the fast path is kept', async () => {
    const { near, farSide } = await start();
    expect(proxy.shape(NAMED_PROFILES.lan).profile).toEqual(NAMED_PROFILES.lan);
    near.socket.write('quick');
    await waitFor(() => farSide.received() === 'quick', 'an unshaped chunk');
    expect(proxy.state()).toMatchObject({ delayedChunks: 0 });
  });
});
