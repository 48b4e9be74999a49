import { afterEach, describe, expect, it } from 'vitest';
import { realClock, wallDelay } from '../../shared/clock.js';
import type { ListenerTimeouts } from '../../shared/http-timeouts.js';
import { ADMIN, guardedApi, type GuardedApi } from '../support/guarded-api.js';
import { rawConnect, type RawConnection } from '../support/raw-connection.js';
import { waitFor } from '../support/wait.js';

/**
 * Short limits, so that each case takes a moment, yet a TLS handshake on a busy machine fits
 * in headersMs (it is the handshake's limit too); generous deadlines.
 */
const timeouts: ListenerTimeouts = { headersMs: 1000, requestMs: 2000, keepAliveMs: 300, idleMs: 1500 };
const DEADLINE_MS = 15_000;
const pods = '/api/v1/namespaces/default/pods';

/**
 * Every connection to the API, plain or TLS, is bound in time: one that sends nothing, sends
 * headers or a body too slowly, stalls mid-request or never finishes its TLS handshake is
 * dropped and counted; a watch is long-lived by design and is not.
 */
describe.each([false, true])('the API listener (TLS: %s) drops slow peers', (tls) => {
  let f: GuardedApi;
  const open: RawConnection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await f?.close();
  });
  const connect = async (o: { tlsHandshake?: boolean } = {}): Promise<RawConnection> => {
    const c = await rawConnect(f.server.port, { ca: tls && o.tlsHandshake !== false ? f.caPem : undefined });
    open.push(c);
    return c;
  };
  const droppedFor = async (c: RawConnection, reason: string): Promise<void> => {
    await waitFor(() => c.closed(), `the connection dropped (${reason})`, DEADLINE_MS);
    await waitFor(() => f.refused(reason) === 1, `${reason} counted`, DEADLINE_MS);
  };

  it('a connection that never sends a byte', async () => {
    f = await guardedApi({ tls, timeouts });
    await droppedFor(await connect({ tlsHandshake: false }), 'header-timeout');
  });

  it('headers that never end', async () => {
    f = await guardedApi({ tls, timeouts });
    const c = await connect();
    c.socket.write(`GET ${pods} HTTP/1.1\r\nHost: x\r\n`);
    await droppedFor(c, 'header-timeout');
  });

  it('a body sent a byte at a time, past the request timeout', async () => {
    f = await guardedApi({ tls, timeouts: { ...timeouts, idleMs: 10_000 } }); // the drip keeps it from idling
    const c = await connect();
    c.socket.write(`POST ${pods} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
    const stopDrip = realClock.setRepeating(50, () => void (c.socket.writable && c.socket.write(' ')));
    try {
      await droppedFor(c, 'request-timeout');
    } finally {
      stopDrip();
    }
  });

  it('a request that stalls halfway', async () => {
    f = await guardedApi({ tls, timeouts: { ...timeouts, requestMs: 10_000 } }); // idle first
    const c = await connect();
    c.socket.write(`POST ${pods} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\nContent-Length: 100\r\n\r\n{"meta`);
    await droppedFor(c, 'idle-timeout');
  });

  it('keeps an idle keep-alive connection for its while, then closes it without calling it a refusal', async () => {
    f = await guardedApi({ tls, timeouts });
    const c = await connect();
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => c.text().includes('\r\n\r\nok'), 'the answer', DEADLINE_MS);
    await waitFor(() => c.closed(), 'the idle connection closed', DEADLINE_MS);
    expect(['header-timeout', 'request-timeout', 'idle-timeout'].map((r) => f.refused(r))).toEqual([0, 0, 0]);
  });

  it('does not cut a quiet watch, which has its own rules', async () => {
    f = await guardedApi({ tls, timeouts });
    const c = await connect();
    c.socket.write(`GET ${pods}?watch=true HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN}\r\n\r\n`);
    await waitFor(() => c.text().includes('200 OK'), 'the watch started', DEADLINE_MS);
    await wallDelay(2 * (timeouts.idleMs + timeouts.keepAliveMs)); // past the idle limits: what is under test is that nothing happens
    expect(c.closed()).toBe(false);
    await f.api.loopback(ADMIN).create({ resource: 'pods', namespace: 'default' }, { metadata: { name: 'late' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    await waitFor(() => c.text().includes('"late"'), 'the event after the quiet', DEADLINE_MS);
  });
});

describe('the TLS side of the API port', () => {
  let f: GuardedApi | undefined;
  afterEach(async () => f?.close());

  it('drops a handshake that never finishes', async () => {
    f = await guardedApi({ tls: true, timeouts });
    const c = await rawConnect(f.server.port);
    c.socket.write(Buffer.from([0x16, 0x03, 0x01])); // the start of a ClientHello, and nothing more
    await waitFor(() => c.closed(), 'the handshake dropped', DEADLINE_MS);
    await waitFor(() => f!.refused('handshake-timeout') === 1, 'handshake-timeout counted', DEADLINE_MS);
  });
});
