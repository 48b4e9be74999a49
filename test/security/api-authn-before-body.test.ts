import { afterEach, describe, expect, it } from 'vitest';
import { joinBodyLimit, joinHandler, type JoinHandler } from '../../cloud/join/join-service.js';
import { silentLogger } from '../../shared/log.js';
import { ADMIN, guardedApi, VIEWER, type GuardedApi } from '../support/guarded-api.js';
import { rawConnect, type RawConnection } from '../support/raw-connection.js';
import { waitFor } from '../support/wait.js';

const pods = '/api/v1/namespaces/default/pods';
const THREE_MIB = 3 * 1024 * 1024;
const DEADLINE_MS = 15_000;

/** The status line and the body of a raw HTTP/1.1 answer (Content-Length framed), once it is all in. */
function answer(text: string): { status: number; headers: string; body: string } | undefined {
  const end = text.indexOf('\r\n\r\n');
  const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1];
  if (end < 0 || length === undefined || Buffer.byteLength(text.slice(end + 4), 'latin1') < Number(length)) return undefined;
  return { status: Number(text.slice(9, 12)), headers: text.slice(0, end), body: text.slice(end + 4) };
}

/** Sends the head of a request announcing a body, and none of the body. */
function headOnly(c: RawConnection, path: string, headers: Record<string, string>): void {
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  c.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${lines}\r\n`);
}

describe('the API authenticates from the headers, before it reads a body', () => {
  let f: GuardedApi;
  const open: RawConnection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await f?.close();
  });
  const connect = async (): Promise<RawConnection> => {
    const c = await rawConnect(f.server.port);
    open.push(c);
    return c;
  };

  it.each([
    ['no credential', {}],
    ['an unknown token', { Authorization: 'Bearer not-a-token' }],
    ['a malformed Authorization header', { Authorization: 'Basic YTpi' }],
  ])('answers 401 to a 3 MiB upload with %s, waiting for none of it', async (_label, auth) => {
    f = await guardedApi();
    const c = await connect();
    headOnly(c, pods, { 'Content-Length': String(THREE_MIB), ...auth });
    const got = await waitFor(() => answer(c.text()), '401 before the body', DEADLINE_MS);
    expect(got.status).toBe(401);
    expect(JSON.parse(got.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
    expect(f.refused('unauthorized')).toBe(1);
  });

  it('answers 400 unauthenticated connections announcing 3 MiB each at once: none is held for its body', async () => {
    f = await guardedApi();
    const flood = await Promise.all(Array.from({ length: 400 }, () => connect()));
    for (const c of flood) headOnly(c, pods, { 'Content-Length': String(THREE_MIB) });
    await waitFor(() => flood.every((c) => answer(c.text())?.status === 401), 'every one refused', DEADLINE_MS);
    expect(f.refused('unauthorized')).toBe(400);
  });

  it('tells a client that asks first (Expect: 100-continue) to go on only once it is authenticated', async () => {
    f = await guardedApi();
    const stranger = await connect();
    headOnly(stranger, pods, { 'Content-Length': String(THREE_MIB), Expect: '100-continue' });
    expect((await waitFor(() => answer(stranger.text()), 'the refusal', DEADLINE_MS)).status).toBe(401);
    expect(stranger.text()).not.toContain('100 Continue');
    const admin = await connect();
    headOnly(admin, pods, { 'Content-Length': '2', Expect: '100-continue', Authorization: `Bearer ${ADMIN}` });
    await waitFor(() => admin.text().startsWith('HTTP/1.1 100 Continue\r\n'), 'go on', DEADLINE_MS);
    admin.socket.write('{}');
    await waitFor(() => admin.text().includes('HTTP/1.1 422 '), 'the answer to the body', DEADLINE_MS);
  });

  it('still reads the body of an authenticated request (and then authorizes it)', async () => {
    f = await guardedApi();
    const body = JSON.stringify({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    const post = (token: string) => fetch(`${f.server.url}${pods}`, { method: 'POST', body, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    expect((await post(ADMIN)).status).toBe(201);
    expect((await post(VIEWER)).status).toBe(403);
    expect(f.refused('forbidden')).toBe(1);
  });

  it('keeps the anonymous paths open', async () => {
    f = await guardedApi();
    expect(await (await fetch(`${f.server.url}/healthz`)).text()).toBe('ok');
    expect((await fetch(`${f.server.url}/readyz/ping`)).status).toBe(200);
    expect(await (await fetch(`${f.server.url}/version`)).json()).toMatchObject({ major: expect.any(String) as unknown });
    expect(f.refused('unauthorized')).toBe(0);
  });
});

describe('the join paths, served before authentication, read a small body at most', () => {
  let f: GuardedApi;
  let joiner: JoinHandler | undefined;
  afterEach(async () => f?.close());
  const start = async (): Promise<void> => {
    f = await guardedApi({ deps: { join: { bodyLimit: joinBodyLimit, serve: (req, path) => joiner?.(req, path) } } });
    joiner = joinHandler({ api: f.api.loopback(ADMIN), clock: f.clock, logger: silentLogger, counters: f.counters, caPem: 'THE CA', brokerUrlFor: () => 'mqtt://127.0.0.1:1883' });
  };
  const join = (body: string | ReadableStream, token = 'abcdef.0123456789abcdef') =>
    fetch(`${f.server.url}/kedge/v1/join`, { method: 'POST', body, headers: { authorization: `Bearer ${token}` }, ...(typeof body === 'string' ? {} : { duplex: 'half' }) } as RequestInit);

  it('serves /cacerts and answers a join for itself', async () => {
    await start();
    expect(await (await fetch(`${f.server.url}/cacerts`)).text()).toBe('THE CA');
    const refused = await join(JSON.stringify({ node: 'edge-1' }));
    expect([refused.status, ((await refused.json()) as { message: string }).message]).toEqual([401, 'unknown or revoked join token']);
  });

  it('refuses a join body over 1 KiB with 413, announced or not', async () => {
    await start();
    const announced = await join(JSON.stringify({ node: 'edge-1', pad: 'x'.repeat(2048) }));
    expect(announced.status).toBe(413);
    const chunk = new TextEncoder().encode('x'.repeat(512));
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({ pull: (c) => void (sent++ < 4096 ? c.enqueue(chunk) : c.close()) });
    const streamed = await join(endless);
    expect(streamed.status).toBe(413);
    expect(((await streamed.json()) as { reason: string }).reason).toBe('RequestEntityTooLarge');
    expect(f.refused('too-large')).toBe(2);
  });
});
