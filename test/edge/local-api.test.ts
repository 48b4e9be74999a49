import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalApi, type ConnectionReport, type LocalApi } from '../../edge/local-api.js';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';

const emptyCache = { objects: () => [], outbox: () => [] } as unknown as LocalCache;

/** GET /connection says what the edge knows: connected until its keepalive fails, and how long the broker has been silent. */
describe("the edge's local API: /connection", () => {
  let api: LocalApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  async function connection(state: { connected: boolean; since: number; heard: number | undefined }, clock: FakeClock): Promise<ConnectionReport> {
    api ??= await startLocalApi({
      port: 0,
      cache: emptyCache,
      connectivity: () => state,
      lastHeardFromBroker: () => state.heard,
      keepaliveSeconds: 2,
      clock,
      logger: silentLogger,
    });
    return (await (await fetch(`${api.url}/connection`)).json()) as ConnectionReport;
  }

  it('while connected: since when the broker has been silent, and the keepalive that decides when it gives up', async () => {
    const clock = new FakeClock();
    const state = { connected: true, since: clock.now(), heard: clock.now() };
    await clock.advance(2_345);
    expect(await connection(state, clock)).toEqual({
      connected: true,
      offlineSince: null,
      queued: 0,
      lastHeardFromBroker: new Date(state.heard).toISOString(),
      silentForSeconds: 2.3,
      keepaliveSeconds: 2,
    });
  });

  it('offline: since when, and when it last heard from the broker', async () => {
    const clock = new FakeClock();
    const heard = clock.now();
    await clock.advance(3_000);
    const state = { connected: false, since: clock.now(), heard };
    await clock.advance(1_000);
    expect(await connection(state, clock)).toMatchObject({ connected: false, offlineSince: new Date(heard + 3_000).toISOString(), lastHeardFromBroker: new Date(heard).toISOString(), silentForSeconds: 4 });
  });

  it('never heard from the broker yet: null', async () => {
    const clock = new FakeClock();
    expect(await connection({ connected: false, since: clock.now(), heard: undefined }, clock)).toMatchObject({ lastHeardFromBroker: null, silentForSeconds: null });
  });
});

describe("the edge's local API: connections", () => {
  it('holds at most maxConnections at once: one more is closed at once', async () => {
    const clock = new FakeClock();
    const api = await startLocalApi({ port: 0, cache: emptyCache, connectivity: () => ({ connected: true, since: clock.now() }), lastHeardFromBroker: () => undefined, keepaliveSeconds: 2, clock, logger: silentLogger, maxConnections: 2 });
    const { port } = new URL(api.url);
    const sockets: Socket[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const s = connect({ host: '127.0.0.1', port: Number(port) });
        s.on('error', () => undefined);
        await once(s, 'connect');
        sockets.push(s);
      }
      await once(sockets[2]!, 'close');
      expect(sockets.map((s) => s.destroyed)).toEqual([false, false, true]);
    } finally {
      for (const s of sockets) s.destroy();
      await api.close();
    }
  });
});
