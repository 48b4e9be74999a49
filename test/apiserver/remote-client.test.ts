import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteClient } from '../../cloud/apiserver/http/remote-handler.js';
import { realClock } from '../../shared/clock.js';
import type { ApiClient } from '../../cloud/client/client.js';
import { isKedgeError } from '../../shared/errors.js';
import type { Pod } from '../../shared/types.js';
import { httpApiFixture, type HttpApiFixture } from '../support/api-http.js';

const ref = { resource: 'pods', namespace: 'default' };
const pod = (name: string): Pod => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }] } });

describe('the remote client (ApiClient over HTTP)', () => {
  let f: HttpApiFixture;
  let client: ApiClient;
  beforeAll(async () => {
    f = await httpApiFixture();
    client = createRemoteClient(f.server.url, f.token);
  });
  afterAll(async () => {
    await f.close();
  });

  it('reaches an https apiserver through its plain port and round-trips objects', async () => {
    expect(f.server.url).toMatch(/^https:/);
    const created = await client.create(ref, pod('r1'));
    expect(created.metadata.uid).toBeTruthy();
    expect((await client.get<Pod>({ ...ref, name: 'r1' })).metadata.uid).toBe(created.metadata.uid);
    expect((await client.list<Pod>(ref)).items.map((p) => p.metadata.name)).toContain('r1');
  });

  it('turns Status failures into KedgeErrors', async () => {
    const err = await client.get({ ...ref, name: 'missing' }).catch((e: unknown) => e);
    expect(isKedgeError(err, 'NotFound')).toBe(true);
    const denied = await createRemoteClient(f.server.url, 'wrong').list(ref).catch((e: unknown) => e);
    expect(isKedgeError(denied, 'Unauthorized')).toBe(true);
  });

  it('streams watch events', async () => {
    const list = await client.list<Pod>(ref);
    const events = firstValueFrom(client.watch<Pod>(ref, { resourceVersion: list.metadata.resourceVersion }).pipe(take(2), toArray()));
    await client.create(ref, pod('w1'));
    await client.delete({ ...ref, name: 'w1' });
    expect((await events).map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', 'w1'], ['DELETED', 'w1']]);
  });

  it('ends a watch whose connection the server drops with an error, and the process lives on', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: pod('a') })}\n`);
      realClock.setTimer(20, () => res.socket?.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const remote = createRemoteClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'token');
      const seen: string[] = [];
      const ended = await new Promise<unknown>((resolve) => {
        remote.watch<Pod>(ref, {}).subscribe({ next: (e) => seen.push(`${e.type} ${e.object.metadata.name}`), error: resolve, complete: () => resolve('completed') });
      });
      expect(seen).toEqual(['ADDED a']);
      expect(ended).toBeInstanceOf(Error);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
