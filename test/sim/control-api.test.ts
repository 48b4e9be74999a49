import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../shared/clock.js';
import { silentLogger } from '../../shared/log.js';
import { ControlError } from '../../sim/control-replies.js';
import { startControlApi, type ControlApi } from '../../sim/control-api.js';
import { edgeViewOf } from '../../sim/demo-edges.js';
import type { EdgeControl, EdgeProcessInfo, EdgeRestart } from '../../sim/edge-routes.js';
import { startLinkProxy, type LinkProxy } from '../../sim/link-proxy.js';

const running = (name: string): EdgeProcessInfo => ({ name, process: 'running', localApiUrl: `http://127.0.0.1:1055${name.slice(-1)}` });

/** A demo's edges without processes: what the control API's /edges routes ask of them. */
class FakeEdges implements EdgeControl {
  readonly restarts: [string, EdgeRestart][] = [];
  busy = false;
  readonly infos = [running('edge-1'), { ...running('edge-2'), process: 'exited' as const, exitCode: null }];

  list(): EdgeProcessInfo[] {
    return this.infos;
  }
  view(node: string) {
    const info = this.infos.find((i) => i.name === node);
    return info && edgeViewOf(info, async (path) => (path === '/pods' ? { items: [{ metadata: { name: 'hello' } }] } : { connected: false, offlineSince: '2025-01-01T00:00:00.000Z', queued: 2 }));
  }
  restart(node: string, how: EdgeRestart) {
    const info = this.infos.find((i) => i.name === node);
    if (!info) return undefined;
    if (this.busy) return Promise.reject(new ControlError(409, 'Conflict', `${node}'s edge process is being restarted already`));
    this.restarts.push([node, how]);
    return Promise.resolve(info);
  }
}

describe('demo control API', () => {
  let links: Map<string, LinkProxy>;
  let edges: FakeEdges;
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
    edges = new FakeEdges();
    api = await startControlApi({ links, edges, logger: silentLogger, podStartups: () => ({ 'default/web': { received: 1, statusSent: 2 } }) });
  });
  afterEach(async () => {
    await api.close();
    for (const link of links.values()) await link.close();
  });

  it("serves the edges' pod startup trace to GET only", async () => {
    expect(await call('GET', '/debug/pod-startups')).toEqual({ status: 200, body: { 'default/web': { received: 1, statusSent: 2 } } });
    expect((await call('POST', '/debug/pod-startups')).status).toBe(405);
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

  it('shapes a link by a named profile or by fields; clear removes it and any flap', async () => {
    const satellite = await call('POST', '/links/edge-1/shape?profile=satellite');
    expect(satellite).toMatchObject({ status: 200, body: { name: 'edge-1', profile: { name: 'satellite', latencyMs: 300, lossPercent: 1, rateUpBps: 256_000 } } });
    expect(links.get('edge-1')!.state().profile?.name).toBe('satellite');
    const custom = await call('POST', '/links/edge-1/shape?latency=600ms&jitter=100ms&loss=2%25&rate=64kbit&rateDown=1mbit');
    expect(custom.body.profile).toEqual({ name: 'custom', latencyMs: 600, jitterMs: 100, lossPercent: 2, rateUpBps: 64_000, rateDownBps: 1_000_000 });
    expect(await call('POST', '/links/edge-1/flap?down=5s&every=30s&seed=7')).toMatchObject({ status: 200, body: { flap: { downMs: 5000, everyMs: 30_000, seed: 7, phase: 'up', flaps: 0 } } });
    const cleared = await call('POST', '/links/edge-1/shape?clear=true');
    expect(cleared.status).toBe(200);
    expect(cleared.body).not.toHaveProperty('profile');
    expect(cleared.body).not.toHaveProperty('flap');
    expect(await call('POST', '/links/edge-1/flap?down=1s&every=2s')).toMatchObject({ status: 200, body: { flap: { downMs: 1000 } } });
    expect((await call('POST', '/links/edge-1/flap?stop=true')).body).not.toHaveProperty('flap');
    expect(links.get('edge-2')!.state()).not.toHaveProperty('profile');
  });

  it('answers 400 naming the bad parameter (bounded values), and changes nothing', async () => {
    expect(await call('POST', '/links/edge-1/shape?latency=1000000000s')).toEqual({ status: 400, body: { error: 'BadRequest', message: 'latency: "1000000000s" is more than 1m0s' } });
    expect((await call('POST', '/links/edge-1/shape?profile=moon')).body.message).toBe('profile: "moon" is not a profile (satellite, 3g, wifi-flaky, lan)');
    expect((await call('POST', '/links/edge-1/shape')).status).toBe(400);
    expect((await call('POST', '/links/edge-1/shape?latency=1s&bogus=1')).body.message).toMatch(/^bogus: unknown field/);
    expect((await call('POST', '/links/edge-1/flap?down=30s&every=5s')).body).toEqual({ error: 'BadRequest', message: 'every: must be more than down (30s)' });
    expect((await call('GET', '/links/edge-1/shape?profile=lan')).status).toBe(405);
    expect(links.get('edge-1')!.state()).not.toHaveProperty('profile');
    expect(links.get('edge-1')!.state()).not.toHaveProperty('flap');
  });

  it('lists each edge with its process and its link', async () => {
    links.get('edge-2')!.cut();
    expect(await call('GET', '/edges')).toEqual({
      status: 200,
      body: {
        items: [
          { name: 'edge-1', process: 'running', localApiUrl: 'http://127.0.0.1:10551', link: 'up' },
          { name: 'edge-2', process: 'exited', exitCode: null, localApiUrl: 'http://127.0.0.1:10552', link: 'cut' },
        ],
      },
    });
  });

  it("shows an edge's own view from its local API, and says so plainly when its process is down", async () => {
    expect(await call('GET', '/edges/edge-1/view')).toEqual({
      status: 200,
      body: { name: 'edge-1', process: 'running', connection: { connected: false, offlineSince: '2025-01-01T00:00:00.000Z', queued: 2 }, pods: [{ metadata: { name: 'hello' } }] },
    });
    expect(await call('GET', '/edges/edge-2/view')).toEqual({
      status: 200,
      body: { name: 'edge-2', process: 'exited', connection: null, pods: null, message: "edge process down: edge-2's process exited (code none: killed by a signal)" },
    });
  });

  it('restarts, crashes and reboots an edge; 409 while one is under way', async () => {
    for (const how of ['restart', 'crash', 'reboot']) expect((await call('POST', `/edges/edge-1/${how}`)).status).toBe(200);
    expect(edges.restarts).toEqual([['edge-1', 'restart'], ['edge-1', 'crash'], ['edge-1', 'reboot']]);
    edges.busy = true;
    expect(await call('POST', '/edges/edge-1/restart')).toEqual({ status: 409, body: { error: 'Conflict', message: "edge-1's edge process is being restarted already" } });
  });

  it('answers 404 for an unknown node or action, 405 for a wrong method', async () => {
    expect(await call('POST', '/edges/edge-9/crash')).toEqual({ status: 404, body: { error: 'NotFound', message: 'no node "edge-9" in this demo (its nodes: edge-1, edge-2)' } });
    expect((await call('GET', '/edges/edge-9/view')).status).toBe(404);
    expect((await call('POST', '/edges/edge-1/unplug')).body.message).toContain('unplug');
    expect((await call('GET', '/edges/edge-1')).status).toBe(404);
    expect((await call('GET', '/edges/edge-1/restart')).status).toBe(405);
    expect((await call('POST', '/edges/edge-1/view')).status).toBe(405);
    expect((await call('DELETE', '/edges')).status).toBe(405);
    expect(edges.restarts).toEqual([]);
  });
});

describe('an edge view when the local API fails', () => {
  it('says which local API did not answer', async () => {
    const view = await edgeViewOf(running('edge-3'), () => Promise.reject(new Error('connect ECONNREFUSED')));
    expect(view).toEqual({ name: 'edge-3', process: 'running', connection: null, pods: null, message: "the edge's local API (http://127.0.0.1:10553) did not answer: connect ECONNREFUSED" });
  });
});
