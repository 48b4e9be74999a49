import { afterEach, describe, expect, it } from 'vitest';
import { startLocalApi } from '../../edge/local-api.js';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import type { ListenerTimeouts } from '../../shared/http-timeouts.js';
import { realClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startControlApi } from '../../sim/control-api.js';
import { rawConnect, type RawConnection } from '../support/raw-connection.js';
import { waitFor } from '../support/wait.js';

/** Short, yet long enough that a request sent at once is in before its limit on a busy machine (as in api-listener-timeouts). */
const timeouts: ListenerTimeouts = { headersMs: 1000, requestMs: 2000, keepAliveMs: 300, idleMs: 1500 };
const DEADLINE_MS = 15_000;
const emptyCache = { objects: () => [], outbox: () => [] } as unknown as LocalCache;

const listeners: Record<string, () => Promise<{ url: string; close(): Promise<void> }>> = {
  "the edge's local API": () => startLocalApi({ port: 0, cache: emptyCache, connectivity: () => ({ connected: true, since: 0 }), lastHeardFromBroker: () => undefined, keepaliveSeconds: 10, clock: realClock, logger: silentLogger, timeouts }),
  "the demo's control API": () => startControlApi({ links: new Map(), logger: silentLogger, timeouts }),
};

/** The other HTTP listeners are bound in time too: silent and slow peers are dropped. */
describe.each(Object.keys(listeners))('%s drops slow peers', (name) => {
  let server: { url: string; close(): Promise<void> } | undefined;
  const open: RawConnection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await server?.close();
    server = undefined;
  });
  const connect = async (): Promise<RawConnection> => {
    server ??= await listeners[name]!();
    const c = await rawConnect(Number(new URL(server.url).port));
    open.push(c);
    return c;
  };

  it('a connection that never sends a byte', async () => {
    const c = await connect();
    await waitFor(() => c.closed(), 'the silent connection dropped', DEADLINE_MS);
  });

  it('headers that never end', async () => {
    const c = await connect();
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    await waitFor(() => c.closed(), 'the slow headers dropped', DEADLINE_MS);
    expect(c.text()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a body that never ends', async () => {
    const c = await connect();
    c.socket.write('POST /links/cut-all HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{');
    await waitFor(() => c.closed(), 'the stalled request dropped', DEADLINE_MS);
  });

  it('still answers, and lets an idle keep-alive connection go', async () => {
    const c = await connect();
    c.socket.write('GET /links HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => /^HTTP\/1\.1 (200|404) /.test(c.text()), 'an answer', DEADLINE_MS);
    await waitFor(() => c.closed(), 'the idle connection closed', DEADLINE_MS);
  });
});
