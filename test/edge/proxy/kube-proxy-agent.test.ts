import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryCache, refOf, type LocalCache } from '../../../edge/metamanager/local-cache.js';
import { openKubeProxy, type KubeProxy } from '../../../edge/network/proxy/kube-proxy.js';
import { FakeClock } from '../../../shared/clock.js';
import { silentLogger } from '../../../shared/log.js';
import type { KubeObject } from '../../../shared/types.js';
import { holdIn } from '../fixtures.js';
import { address, endpoints, podOn, service } from './proxy-fixtures.js';
import { backend, dialPort, firstWords, whoAnswers, type Backend } from './sockets.js';

const WEB = 'default/web:http';
let dir: string;
let clock: FakeClock;
let cache: LocalCache;
let changes: Subject<void>;
let proxy: KubeProxy;
let backends: Backend[];
let version = 1;

/** Holds a newer version of `object`, then says the cache changed (as the CloudMessageHandler does). */
function cloudSends(object: KubeObject & { kind: string }): void {
  object.metadata.resourceVersion = String(++version);
  holdIn(cache, object);
  changes.next();
}

const port = (b: Backend): number => Number(b.endpoint.split(':')[1]);
/** A backend's address as an endpoint of `web` on `node`, for pod `pod` (each backend listens on its own port: one subset per backend). */
const backendEndpoints = (list: { b: Backend; node?: string; pod?: string }[]) => ({
  ...endpoints('web', [], []),
  subsets: list.map(({ b, node, pod }) => ({ addresses: [address('127.0.0.2', node ?? 'edge-2', pod)], ports: [{ name: 'http', port: port(b) }] })),
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kedge-kube-proxy-'));
  clock = new FakeClock();
  cache = createMemoryCache();
  changes = new Subject<void>();
  backends = await Promise.all(['a', 'b', 'c'].map((n) => backend(n)));
  proxy = await openKubeProxy({ dataDir: dir, nodeName: 'edge-1', nodeAddress: '127.0.0.1', cache, changes$: changes, clock, logger: silentLogger, dataPlane: { random: () => 0.99 } });
  holdIn(cache, service('web', [{ name: 'http', port: 80 }]));
});

afterEach(async () => {
  await proxy.close();
  await Promise.all(backends.map((b) => b.close()));
  await rm(dir, { recursive: true, force: true });
});

const portal = (key = WEB): number => proxy.rules.portalOf(key)!.port;

describe('the kube-proxy agent', () => {
  it('programs a portal per Service port from the cache, and follows endpoint changes', async () => {
    holdIn(cache, backendEndpoints([{ b: backends[0]! }]));
    await proxy.agent.start();
    expect(proxy.agent.running()).toBe(true);
    expect(await whoAnswers(portal())).toBe('a');
    cloudSends(backendEndpoints([{ b: backends[1]! }]));
    await proxy.agent.sync();
    expect(await whoAnswers(portal())).toBe('b');
  });

  it('stopped, it freezes the table: traffic keeps flowing, a new endpoint or Service is not used until it starts again', async () => {
    holdIn(cache, backendEndpoints([{ b: backends[0]! }]));
    await proxy.agent.start();
    const held = await dialPort(portal());
    expect(await firstWords(held)).toBe('a');

    await clock.advance(1000);
    await proxy.agent.stop();
    expect(proxy.agent.running()).toBe(false);
    expect(proxy.agent.since()).toBe(clock.now());
    cloudSends(backendEndpoints([{ b: backends[2]! }]));
    cloudSends(service('api', [{ name: 'http', port: 8080 }]));
    await proxy.agent.sync();
    expect(await whoAnswers(portal())).toBe('a');
    expect(proxy.rules.portalOf('default/api:http')).toBeUndefined();
    held.write('still here');
    expect(await firstWords(held)).toBe('still here');

    await proxy.agent.start();
    expect(await whoAnswers(portal())).toBe('c');
    expect(proxy.rules.portalOf('default/api:http')).toBeDefined();
    held.destroy();
  });

  it('offline, an endpoint on this edge whose pod turns unready is taken out locally; it comes back when ready again', async () => {
    holdIn(cache, podOn('w1', true));
    holdIn(cache, backendEndpoints([{ b: backends[0]!, node: 'edge-1', pod: 'w1' }, { b: backends[1]!, node: 'edge-2', pod: 'w2' }]));
    await proxy.agent.start();
    const answers = new Set([await whoAnswers(portal()), await whoAnswers(portal())]);
    expect([...answers].sort()).toEqual(['a', 'b']);

    // edged saw the readiness probe fail: it queues the status (no cloud involved) and the agent hears of it.
    const held = cache.find('Pod', 'default', 'w1')!;
    cache.queueStatus(refOf(held), { ...podOn('w1', false).status }, clock.now());
    changes.next();
    await proxy.agent.sync();
    expect(proxy.rules.current().get(WEB)!.endpoints).toEqual([`127.0.0.2:${port(backends[1]!)}`]);
    for (let i = 0; i < 3; i++) expect(await whoAnswers(portal())).toBe('b');

    cache.queueStatus(refOf(held), { ...podOn('w1', true).status }, clock.now());
    changes.next();
    await proxy.agent.sync();
    expect(proxy.rules.current().get(WEB)!.endpoints).toHaveLength(2);
  });
});
