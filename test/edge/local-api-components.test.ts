import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalApi, type LocalApi } from '../../edge/local-api.js';
import { loadLocalApiToken, localApiTokenPath } from '../../edge/local-api-token.js';
import type { LocalCache } from '../../edge/metamanager/local-cache.js';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { FakeComponent } from './fake-component.js';

const emptyCache = { objects: () => [], outbox: () => [] } as unknown as LocalCache;
const TOKEN = 'a-token-for-tests';

/** The local API's /components: open reads, changes only with the edge's token. */
describe("the edge's local API: /components", () => {
  let api: LocalApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  async function start(clock: FakeClock, onComponentChange?: () => void): Promise<{ url: string; proxy: FakeComponent }> {
    const proxy = new FakeComponent('kube-proxy', clock);
    api = await startLocalApi({
      port: 0, cache: emptyCache, connectivity: () => ({ connected: true, since: 0 }), lastHeardFromBroker: () => undefined, keepaliveSeconds: 2, clock, logger: silentLogger,
      token: TOKEN, components: () => [proxy, new FakeComponent('kedge-cni', clock)], ...(onComponentChange ? { onComponentChange } : {}),
    });
    return { url: api.url, proxy };
  }
  const post = (url: string, token?: string) => fetch(url, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} });

  it('GET lists every component (running, since when) without a token', async () => {
    const clock = new FakeClock();
    const { url } = await start(clock);
    const since = new Date(clock.now()).toISOString();
    expect(await (await fetch(`${url}/components`)).json()).toEqual({ items: [{ name: 'kube-proxy', running: true, since }, { name: 'kedge-cni', running: true, since }] });
    expect(await (await fetch(`${url}/components/kedge-cni`)).json()).toEqual({ name: 'kedge-cni', running: true, since });
  });

  it('POST stop and start need the bearer token: 401 without it or with another, and the component is untouched', async () => {
    const clock = new FakeClock();
    const { url, proxy } = await start(clock);
    for (const token of [undefined, 'wrong']) {
      const res = await post(`${url}/components/kube-proxy/stop`, token);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'Unauthorized', message: expect.stringContaining('local-api.token') });
    }
    expect(proxy.calls).toEqual([]);
  });

  it('stops and starts a component with the token; says its state; tells edged', async () => {
    const clock = new FakeClock();
    let told = 0;
    const { url, proxy } = await start(clock, () => told++);
    await clock.advance(5_000);
    const stopped = await post(`${url}/components/kube-proxy/stop`, TOKEN);
    expect(stopped.status).toBe(200);
    expect(await stopped.json()).toEqual({ name: 'kube-proxy', running: false, since: new Date(clock.now()).toISOString() });
    expect(proxy.running()).toBe(false);
    // Stopping a stopped one changes nothing, and says so.
    expect(await (await post(`${url}/components/kube-proxy/stop`, TOKEN)).json()).toMatchObject({ running: false });
    expect(proxy.calls).toEqual(['stop']);
    expect(await (await post(`${url}/components/kube-proxy/start`, TOKEN)).json()).toMatchObject({ name: 'kube-proxy', running: true });
    expect(told).toBe(2);
  });

  it('refuses an unknown component or action (404) and other methods (405), with clear JSON', async () => {
    const { url } = await start(new FakeClock());
    const unknown = await post(`${url}/components/etcd/stop`, TOKEN);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: 'NotFound', message: 'no component "etcd" on this edge (its components: kube-proxy, kedge-cni)' });
    expect((await fetch(`${url}/components/etcd`)).status).toBe(404);
    expect(await (await post(`${url}/components/kube-proxy/restart`, TOKEN)).json()).toMatchObject({ error: 'NotFound', message: 'no component action "restart" (stop, start)' });
    const get = await fetch(`${url}/components/kube-proxy/stop`);
    expect(get.status).toBe(405);
    expect(await get.json()).toEqual({ error: 'MethodNotAllowed', message: 'GET /components/kube-proxy/stop is not allowed; use POST' });
    expect((await post(`${url}/components`, TOKEN)).status).toBe(405);
    expect(await (await fetch(`${url}/components/%E0%A4%A`)).json()).toEqual({ error: 'BadRequest', message: 'malformed path /components/%E0%A4%A' });
    const pods = await post(`${url}/pods`, TOKEN);
    expect(pods.status).toBe(405);
    expect(await pods.json()).toMatchObject({ error: 'MethodNotAllowed' });
  });
});

describe("the edge's local API token", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is written once into the data dir, owner-only, and the same after a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'kedge-token-'));
    const first = await loadLocalApiToken(dir);
    expect(first).toMatch(/^[\w-]{43}$/);
    expect((await stat(localApiTokenPath(dir))).mode & 0o777).toBe(0o600);
    expect(await loadLocalApiToken(dir)).toBe(first);
  });
});
