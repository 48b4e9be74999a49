import { afterEach, describe, expect, it } from 'vitest';
import { ADMIN, guardedApi, NODE, VIEWER, type GuardedApi } from '../support/guarded-api.js';
import { rawConnect, type RawConnection } from '../support/raw-connection.js';
import { waitFor } from '../support/wait.js';

const pods = '/api/v1/namespaces/default/pods';
const DEADLINE_MS = 15_000;

/**
 * As kube-apiserver's max-requests-inflight: at most so many reads and so many writes at once
 * (bodies being read count), then 429 with Retry-After, before anything is read. Watches and
 * the cluster's super-users (system:masters) are not held to it.
 */
describe('requests in flight are bounded', () => {
  let f: GuardedApi;
  const open: RawConnection[] = [];
  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await f?.close();
  });

  /** A request whose body has begun and not ended: it stays in flight. */
  const hold = async (method: string, token: string): Promise<RawConnection> => {
    const c = await rawConnect(f.server.port);
    open.push(c);
    c.socket.write(`${method} ${pods} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n{`);
    return c;
  };
  const call = (method: string, token: string, path = pods) =>
    fetch(`${f.server.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
  /** Until the server has taken the held requests in (their answers cannot come before their bodies). */
  const admitted = async (n: number, method: string, token: string): Promise<void> => {
    await waitFor(async () => (await call(method, token)).status === 429, `${n} ${method}s in flight`, DEADLINE_MS);
  };

  it('answers 429 TooManyRequests with Retry-After past the writes limit, and takes writes again once one ends', async () => {
    f = await guardedApi({ inflight: { readOnly: 2, mutating: 2 } });
    const held = [await hold('POST', VIEWER), await hold('POST', NODE)];
    await admitted(2, 'POST', VIEWER);
    const refused = await call('POST', NODE);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([429, '1']);
    expect(await refused.json()).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 429, reason: 'TooManyRequests',
      message: 'Too many requests, please try again later.', details: { retryAfterSeconds: 1 },
    });
    expect((await call('GET', VIEWER)).status).toBe(200); // reads have their own limit
    expect((await call('POST', ADMIN)).status).toBe(422); // system:masters always get an answer (here: an empty pod is Invalid)
    held[0]!.socket.write('}        ');
    await waitFor(() => held[0]!.text().startsWith('HTTP/1.1 403'), 'the held write answered', DEADLINE_MS);
    await waitFor(async () => (await call('POST', VIEWER)).status === 403, 'writes taken again', DEADLINE_MS);
    expect(f.refused('too-many-requests')).toBeGreaterThanOrEqual(2);
  });

  it('bounds reads apart, and never counts watches', async () => {
    f = await guardedApi({ inflight: { readOnly: 2, mutating: 2 } });
    await hold('GET', VIEWER);
    await hold('GET', VIEWER);
    await admitted(2, 'GET', VIEWER);
    const before = f.refused('too-many-requests');
    expect((await call('GET', VIEWER)).status).toBe(429);
    expect((await call('POST', VIEWER)).status).toBe(403); // writes have their own limit
    const watches = await Promise.all([1, 2, 3].map(() => fetch(`${f.server.url}${pods}?watch=true`, { headers: { authorization: `Bearer ${VIEWER}` } })));
    expect(watches.map((w) => w.status)).toEqual([200, 200, 200]);
    for (const w of watches) await w.body?.cancel();
    expect(f.refused('too-many-requests')).toBe(before + 1);
  });
});
