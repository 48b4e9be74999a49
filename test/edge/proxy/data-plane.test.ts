import { mkdtemp, rm, stat } from 'node:fs/promises';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ServiceListener } from '../../../edge/network/proxy/listener.js';
import { PORTALS_FILE, PortalsFile } from '../../../edge/network/proxy/portals-file.js';
import { PROXY_COUNTERS as C } from '../../../edge/network/proxy/proxy-counters.js';
import { ProxyRules, type ProxyRulesDeps } from '../../../edge/network/proxy/proxy-rules.js';
import type { ServiceRule } from '../../../edge/network/proxy/service-rules.js';
import { dialTcp } from '../../../edge/network/proxy/tcp-relay.js';
import { FakeClock } from '../../../shared/clock.js';
import { memoryLogger, silentLogger } from '../../../shared/log.js';
import { freePort } from '../../support/free-port.js';
import { settle } from '../../support/settle.js';
import { backend, closed, dialPort, firstWords, whoAnswers, type Backend } from './sockets.js';

const KEY = 'default/web:http';
const rule = (endpoints: string[], extra: Partial<ServiceRule> = {}): ServiceRule => ({ key: KEY, namespace: 'default', service: 'web', portName: 'http', port: 80, clusterIP: '10.96.0.10', endpoints, ...extra });

let dir: string;
let clock: FakeClock;
let backends: Backend[];
const open: ProxyRules[] = [];

async function rules(deps: Partial<ProxyRulesDeps> = {}): Promise<ProxyRules> {
  const portals = await PortalsFile.open(dir, { logger: silentLogger });
  const r = new ProxyRules({ nodeAddress: '127.0.0.1', portals, clock, logger: silentLogger, random: () => 0.99, ...deps });
  open.push(r);
  return r;
}

async function serving(endpoints: string[], deps: Partial<ProxyRulesDeps> = {}, extra: Partial<ServiceRule> = {}): Promise<{ r: ProxyRules; port: number }> {
  const r = await rules(deps);
  await r.apply([{ type: 'open', rule: rule(endpoints, extra) }]);
  return { r, port: r.portalOf(KEY)!.port };
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kedge-proxy-'));
  clock = new FakeClock();
  backends = await Promise.all(['a', 'b', 'c'].map((n) => backend(n)));
});

afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
  await Promise.all(backends.map((b) => b.close()));
  await rm(dir, { recursive: true, force: true });
});

describe('the userspace data plane (real sockets on loopback)', () => {
  it('a portal on the node address spreads connections round robin over the endpoints', async () => {
    const { r, port } = await serving(backends.map((b) => b.endpoint));
    expect(r.portalOf(KEY)).toEqual({ host: '127.0.0.1', port });
    const answers: string[] = [];
    for (let i = 0; i < 6; i++) answers.push(await whoAnswers(port));
    expect(answers.sort()).toEqual(['a', 'a', 'b', 'b', 'c', 'c']);
    expect(r.counters.get(C.connections, { service: KEY })).toBe(6);
  });

  it('a node address off loopback: portals listen on 127.0.0.1 (not the LAN), and portalOf says so', async () => {
    const { r, port } = await serving([backends[0]!.endpoint], { nodeAddress: '192.0.2.10', bindRetryMs: 60_000 });
    expect(r.portalOf(KEY)).toEqual({ host: '127.0.0.1', port });
    expect(await whoAnswers(port)).toBe('a');
  });

  it('a loopback node address other than 127.0.0.1 (demo edges): portals listen on it', async () => {
    const { r, port } = await serving([backends[0]!.endpoint], { nodeAddress: '127.0.1.7' });
    expect(r.portalOf(KEY)).toEqual({ host: '127.0.1.7', port });
    expect(await whoAnswers(port, '127.0.1.7')).toBe('a');
  });

  it('relays both ways and counts the bytes', async () => {
    const { r, port } = await serving([backends[0]!.endpoint]);
    const client = await dialPort(port);
    expect(await firstWords(client)).toBe('a');
    client.write('ping');
    expect(await firstWords(client)).toBe('ping');
    client.destroy();
    await closed(backends[0]!.sockets[0]!);
    await settle();
    expect(r.counters.get(C.bytesIn, { service: KEY })).toBe(4);
    expect(r.counters.get(C.bytesOut, { service: KEY })).toBe(5);
  });

  it('sessionAffinity ClientIP: every connection from one client IP reaches the same endpoint', async () => {
    const { port } = await serving(backends.map((b) => b.endpoint), {}, { affinityMs: 10_800_000 });
    const answers = new Set<string>();
    for (let i = 0; i < 5; i++) answers.add(await whoAnswers(port));
    expect(answers.size).toBe(1);
  });

  it('an endpoint that does not answer is given up after its dial timeout (250 ms on the clock), and the next one serves', async () => {
    const dials: number[] = [];
    const dial = (host: string, p: number): Socket => {
      dials.push(p);
      return p === 1 ? new Socket() : dialTcp(host, p); // port 1: a SYN never answered
    };
    const { r, port } = await serving(['127.0.0.1:1', backends[0]!.endpoint], { dial });
    const client = await dialPort(port);
    const answer = firstWords(client);
    await settle();
    expect(dials).toEqual([1]);
    await clock.advance(249);
    await settle();
    expect(dials).toEqual([1]);
    await clock.advance(1);
    expect(await answer).toBe('a');
    expect(r.counters.get(C.dialFailures, { service: KEY })).toBe(1);
    client.destroy();
  });

  it('no endpoints: the connection is accepted, then closed', async () => {
    const { r, port } = await serving([]);
    const client = await dialPort(port);
    expect(await firstWords(client)).toBe('');
    await closed(client);
    expect(r.counters.get(C.noEndpoint, { service: KEY })).toBe(1);
  });

  it('every dial failing: closed after four attempts', async () => {
    const down = await freePort();
    const { r, port } = await serving([`127.0.0.1:${down}`]);
    const client = await dialPort(port);
    await closed(client);
    expect(r.counters.get(C.dialFailures, { service: KEY })).toBe(4);
    expect(r.counters.get(C.allDialsFailed, { service: KEY })).toBe(1);
  });

  it('when the client ends, the endpoint\'s socket closes too; and the other way round', async () => {
    const { port } = await serving([backends[0]!.endpoint]);
    const client = await dialPort(port);
    await firstWords(client);
    client.end();
    await closed(backends[0]!.sockets[0]!);
    await closed(client);

    const second = await dialPort(port);
    await firstWords(second);
    backends[0]!.sockets[1]!.end();
    await closed(second);
  });

  it('an endpoint whose end never finishes (it does not read) outlives its client: still tracked, and closed by the idle sweep', async () => {
    let held: Socket | undefined;
    const dial = (host: string, p: number): Socket => {
      held = dialTcp(host, p);
      held.end = () => held!; // its writes never drain, so end() never finishes
      return held;
    };
    const { r, port } = await serving([backends[0]!.endpoint], { dial, idleTimeoutMs: 1000 });
    const client = await dialPort(port);
    expect(await firstWords(client)).toBe('a');
    client.end();
    await closed(client);
    await settle();
    expect(held!.destroyed).toBe(false);
    expect(r.activeConnections()).toBe(1);
    await clock.advance(1250);
    expect(held!.destroyed).toBe(true);
    expect(r.counters.get(C.idleClosed, { service: KEY })).toBe(1);
    expect(r.activeConnections()).toBe(0);
  });

  it('a NodePort Service also listens on node address:nodePort', async () => {
    const nodePort = await freePort();
    const { port } = await serving([backends[1]!.endpoint], {}, { nodePort });
    expect(await whoAnswers(nodePort)).toBe('b');
    expect(await whoAnswers(port)).toBe('b');
  });

  it('a taken NodePort is logged and tried again, never fatal; the portal serves meanwhile', async () => {
    const taken = await backend('squatter', '127.0.0.1');
    const nodePort = Number(taken.endpoint.split(':')[1]);
    const logger = memoryLogger('kube-proxy');
    const { port } = await serving([backends[1]!.endpoint], { bindRetryMs: 1000, logger }, { nodePort });
    expect(await whoAnswers(port)).toBe('b');
    for (let i = 0; i < 3; i++) {
      await clock.advance(1000);
      await settle();
    }
    expect(logger.lines.filter((l) => l.includes('cannot listen'))).toHaveLength(1); // then debug lines only
    await taken.close();
    await clock.advance(1000);
    await settle();
    expect(await whoAnswers(nodePort)).toBe('b');
  });

  it('a port bound after failed attempts is announced once (no callback left behind by a failed bind)', async () => {
    const taken = await backend('squatter', '127.0.0.1');
    const port = Number(taken.endpoint.split(':')[1]);
    const bound: number[] = [];
    const listener = new ServiceListener({ host: '127.0.0.1', port, what: 'test', maxConnections: 1, retryMs: 1000, clock, logger: silentLogger, onConnection: (s) => s.destroy(), onDrop: () => undefined, onBound: (p) => bound.push(p) });
    await listener.listen();
    for (let i = 0; i < 3; i++) {
      await clock.advance(1000);
      await settle();
    }
    await taken.close();
    await clock.advance(1000);
    await settle();
    listener.close();
    expect(bound).toEqual([port]);
  });

  it('an endpoint change reaches new connections; connections in flight keep their endpoint', async () => {
    const { r, port } = await serving([backends[0]!.endpoint]);
    const held = await dialPort(port);
    expect(await firstWords(held)).toBe('a');
    await r.apply([{ type: 'update', rule: rule([backends[2]!.endpoint]) }]);
    expect(await whoAnswers(port)).toBe('c');
    held.write('still');
    expect(await firstWords(held)).toBe('still');
    held.destroy();
  });

  it('at most maxConnections per listener: one more is closed at once, and counted', async () => {
    const { r, port } = await serving([backends[0]!.endpoint], { maxConnections: 1 });
    const first = await dialPort(port);
    expect(await firstWords(first)).toBe('a');
    const second = await dialPort(port);
    expect(await firstWords(second)).toBe('');
    expect(r.counters.get(C.dropped, { service: KEY })).toBe(1);
    first.destroy();
  });

  it('a connection idle for the idle timeout is closed', async () => {
    const { r, port } = await serving([backends[0]!.endpoint], { idleTimeoutMs: 1000 });
    const client = await dialPort(port);
    await firstWords(client);
    await clock.advance(1250);
    await closed(client);
    expect(r.counters.get(C.idleClosed, { service: KEY })).toBe(1);
  });

  it('the same Service port gets the same portal after a restart over the same data dir; the file is owner-only', async () => {
    const { r, port } = await serving([backends[0]!.endpoint]);
    await r.close();
    expect((await stat(join(dir, PORTALS_FILE))).mode & 0o777).toBe(0o600);
    const { port: again } = await serving([backends[0]!.endpoint]);
    expect(again).toBe(port);
    expect(await whoAnswers(again)).toBe('a');
  });

  it('a Service port that goes is forgotten: closed, and gone from the portals file', async () => {
    const { r, port } = await serving([backends[0]!.endpoint]);
    await r.apply([{ type: 'close', key: KEY }]);
    expect(r.portalOf(KEY)).toBeUndefined();
    expect((await PortalsFile.open(dir, { logger: silentLogger })).portOf(KEY)).toBe(0);
    const refused = new Promise((resolve) => new Socket().once('error', resolve).connect(port, '127.0.0.1'));
    expect(await refused).toMatchObject({ code: 'ECONNREFUSED' });
  });
});
