import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { startControlApi, type ControlApi } from '../../sim/control-api.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';

describe('demo control API', () => {
  let links: Map<string, LinkProxy>;
  let api: ControlApi;
  const call = async (method: string, path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${api.url}${path}`, { method });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  beforeEach(async () => {
    const clock = new FakeClock();
    links = new Map();
    for (const name of ['edge-1', 'edge-2']) {
      // The target is never dialled: no client connects through these proxies.
      links.set(name, await startLinkProxy({ name, target: { host: '127.0.0.1', port: 9 }, clock, logger: silentLogger }));
    }
    api = await startControlApi({ links, logger: silentLogger });
  });
  afterEach(async () => {
    await api.close();
    for (const link of links.values()) await link.close();
  });

  it('lists every link and shows one', async () => {
    const all = await call('GET', '/links');
    expect(all.status).toBe(200);
    expect((all.body.items as { name: string }[]).map((l) => l.name)).toEqual(['edge-1', 'edge-2']);
    expect(await call('GET', '/links/edge-2')).toMatchObject({ status: 200, body: { name: 'edge-2', state: 'up', connections: 0 } });
  });

  it('cuts, heals and resets a link', async () => {
    expect(await call('POST', '/links/edge-1/cut')).toMatchObject({ status: 200, body: { name: 'edge-1', state: 'cut' } });
    expect(links.get('edge-1')!.state().state).toBe('cut');
    expect(links.get('edge-2')!.state().state).toBe('up');
    expect(await call('POST', '/links/edge-1/reset')).toMatchObject({ status: 200, body: { state: 'cut' } });
    expect(await call('POST', '/links/edge-1/heal')).toMatchObject({ status: 200, body: { state: 'up' } });
  });

  it('answers 404 naming an unknown node, an unknown action or path; 405 for a wrong method', async () => {
    expect(await call('POST', '/links/edge-9/cut')).toEqual({
      status: 404,
      body: { error: 'NotFound', message: 'no node "edge-9" in this demo (its nodes: edge-1, edge-2)' },
    });
    expect(await call('POST', '/links/edge-1/unplug')).toMatchObject({ status: 404, body: { message: expect.stringContaining('unplug') } });
    expect((await call('GET', '/nodes')).status).toBe(404);
    expect((await call('GET', '/links/edge-1/cut')).status).toBe(405);
    expect((await call('DELETE', '/links')).status).toBe(405);
    expect(links.get('edge-1')!.state().state).toBe('up');
  });
});
