import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { wallDelay, FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { resetSocket } from '../../sim/link-pair.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';
import { waitFor } from '../support/wait.js';
import { dial, startFarEnd, type FarEnd, type Watched } from './tcp-fixtures.js';

/** Real time during which nothing may happen (socket I/O, not protocol timing). */
const QUIET_MS = 300;

describe('link proxy', () => {
  let far: FarEnd;
  let proxy: LinkProxy;
  let clock: FakeClock;
  const clients: Watched[] = [];

  /** A client connected through the proxy, and the far end's side of it. */
  const pair = async (): Promise<{ near: Watched; farSide: Watched }> => {
    const before = far.accepted.length;
    const near = await dial(proxy.port);
    clients.push(near);
    const farSide = await waitFor(() => far.accepted[before], 'the far end to accept');
    return { near, farSide };
  };

  beforeEach(async () => {
    clock = new FakeClock();
    far = await startFarEnd();
    proxy = await startLinkProxy({ name: 'edge-1', target: { host: '127.0.0.1', port: far.port }, clock, logger: silentLogger });
  });
  afterEach(async () => {
    for (const c of clients.splice(0)) c.socket.destroy();
    await proxy.close();
    await far.close();
  });

  it('forwards bytes both ways while up, and counts them', async () => {
    const { near, farSide } = await pair();
    near.socket.write('hello');
    await waitFor(() => farSide.received() === 'hello', 'bytes up');
    farSide.socket.write('world!');
    await waitFor(() => near.received() === 'world!', 'bytes down');
    expect(proxy.state()).toMatchObject({ name: 'edge-1', state: 'up', connections: 1, bytesUp: 5, bytesDown: 6 });
    expect(proxy.url).toBe(`tcp://127.0.0.1:${proxy.port}`);
  });

  it('cut: nothing passes and nobody is told; heal: held bytes arrive and traffic flows', async () => {
    const { near, farSide } = await pair();
    await clock.advance(1000);
    const cut = proxy.cut();
    expect(cut).toMatchObject({ state: 'cut', since: new Date(clock.now()).toISOString(), connections: 1 });
    near.socket.write('up-during-cut');
    farSide.socket.write('down-during-cut');
    await wallDelay(QUIET_MS);
    expect([near.received(), farSide.received()]).toEqual(['', '']);
    expect([near.events, farSide.events]).toEqual([[], []]);

    expect(proxy.heal().state).toBe('up');
    await waitFor(() => farSide.received() === 'up-during-cut', 'held bytes up');
    await waitFor(() => near.received() === 'down-during-cut', 'held bytes down');
    near.socket.write('+after');
    await waitFor(() => farSide.received() === 'up-during-cut+after', 'bytes after heal');
    expect(near.events).toEqual([]);
  });

  it('holds a large backlog in order across a cut (the window closes past the hold limit)', async () => {
    const { near, farSide } = await pair();
    proxy.cut();
    const big = Buffer.alloc(3 << 20, 'abcdefghijklmnopqrstuvwxyz');
    near.socket.write(big);
    await wallDelay(QUIET_MS);
    expect(farSide.received()).toBe('');
    proxy.heal();
    await waitFor(() => farSide.received().length === big.length || undefined, 'the whole backlog', 10_000);
    expect(farSide.received() === big.toString()).toBe(true);
    expect(proxy.state().bytesUp).toBe(big.length);
  });

  it('an end that closes during the cut: the other side hears nothing until heal, then a reset', async () => {
    const { near, farSide } = await pair();
    proxy.cut();
    near.socket.end();
    await waitFor(() => near.events.includes('close') || undefined, 'the near end to close');
    await wallDelay(QUIET_MS);
    expect(farSide.events).toEqual([]);

    proxy.heal();
    await waitFor(() => farSide.events.includes('close') || undefined, 'the far end to be reset');
    expect(farSide.errors).toEqual(['ECONNRESET']);
    expect(farSide.events).not.toContain('end');
  });

  it('a far end that errors during the cut: the client is reset on heal', async () => {
    const { near, farSide } = await pair();
    proxy.cut();
    farSide.socket.resetAndDestroy();
    await wallDelay(QUIET_MS);
    expect(near.events).toEqual([]);
    proxy.heal();
    await waitFor(() => near.events.includes('close') || undefined, 'the client to be reset');
    expect(near.errors).toEqual(['ECONNRESET']);
  });

  it('passes a FIN while up', async () => {
    const { near, farSide } = await pair();
    near.socket.end();
    await waitFor(() => farSide.events.includes('end') || undefined, 'the FIN to reach the far end');
    expect(farSide.errors).toEqual([]);
  });

  it('reset(): both ends get ECONNRESET and the link stays up', async () => {
    const { near, farSide } = await pair();
    expect(proxy.reset().state).toBe('up');
    await waitFor(() => near.events.includes('close') && farSide.events.includes('close'), 'both ends to close');
    expect(near.errors).toEqual(['ECONNRESET']);
    expect(farSide.errors).toEqual(['ECONNRESET']);
    expect(proxy.state().connections).toBe(0);
    const again = await pair();
    again.near.socket.write('x');
    await waitFor(() => again.farSide.received() === 'x', 'a new connection to work');
  });

  it('a connection made during the cut reaches nothing, and is reset on heal', async () => {
    proxy.cut();
    const near = await dial(proxy.port);
    clients.push(near);
    near.socket.write('anyone?');
    await wallDelay(QUIET_MS);
    expect(far.accepted).toHaveLength(0);
    expect(near.events).toEqual([]);
    expect(proxy.state()).toMatchObject({ connections: 1, bytesUp: 0 });

    proxy.heal();
    await waitFor(() => near.events.includes('close') || undefined, 'the blackholed client to be reset');
    expect(near.errors).toEqual(['ECONNRESET']);
    expect(far.accepted).toHaveLength(0);
    await waitFor(() => proxy.state().connections === 0, 'no connections left');
  });

  it('resets the client when the target refuses', async () => {
    await far.close();
    const near = await dial(proxy.port);
    clients.push(near);
    await waitFor(() => near.events.includes('close') || undefined, 'the client to be dropped');
    expect(near.errors).toEqual(['ECONNRESET']);
  });
});

describe('resetSocket', () => {
  it('closes a socket whose FIN is still queued (an RST is refused then, and the handle would stay open)', async () => {
    const far = await startFarEnd();
    const near = await dial(far.port);
    near.socket.end(); // the shutdown happens on a later turn of the loop
    resetSocket(near.socket);
    expect([near.socket.destroyed, near.errors]).toEqual([true, []]);
    await waitFor(() => near.events.includes('close') || undefined, 'the handle to close');
    await far.close();
  });
});
