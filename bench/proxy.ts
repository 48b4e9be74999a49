import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PortalsFile } from '../edge/network/proxy/portals-file.js';
import { ProxyRules } from '../edge/network/proxy/proxy-rules.js';
import type { ServiceRule } from '../edge/network/proxy/service-rules.js';
import { realClock } from '../shared/clock.js';
import { silentLogger } from '../shared/log.js';
import type { PeerAnswer, PeerRequest } from './proxy-peer.js';
import { median, percentile, round } from './stats.js';

/*
 * kube-proxy's userspace data plane against a direct connection to the endpoint, on loopback:
 * throughput (one connection downloading `megabytes` from the endpoint, MB/s, best of `runs`)
 * and request round trips (`rounds` of `size` bytes echoed on one connection: median and p99).
 * The endpoint and the client each run in a worker thread, the proxy in this one.
 */

export interface ProxyBenchOptions {
  megabytes: number;
  runs: number;
  rounds: number;
  size: number;
  log: (line: string) => void;
}

export interface ProxyBenchReport {
  megabytes: number;
  runs: number;
  rounds: number;
  requestBytes: number;
  throughputMBps: { direct: number; proxy: number; ratio: number };
  roundTripUs: { direct: { p50: number; p99: number }; proxy: { p50: number; p99: number }; p50Ratio: number; p99Ratio: number };
}

class Peer {
  private readonly worker: Worker;

  constructor(role: 'endpoint' | 'client', bytes = 0) {
    this.worker = new Worker(new URL('./proxy-peer.js', import.meta.url), { workerData: { bytes, role } });
  }

  async ready(): Promise<{ sourcePort: number; echoPort: number }> {
    const [answer] = (await once(this.worker, 'message')) as [Extract<PeerAnswer, { type: 'ready' }>];
    return answer;
  }

  async ask<T extends PeerAnswer>(req: PeerRequest): Promise<T> {
    this.worker.postMessage(req);
    return ((await once(this.worker, 'message')) as [T])[0];
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

const rule = (key: string, port: number): ServiceRule => ({ key, namespace: 'bench', service: key, portName: '', port: 80, clusterIP: '10.96.0.99', endpoints: [`127.0.0.1:${port}`] });

async function bestMBps(peer: Peer, port: number, o: ProxyBenchOptions): Promise<number> {
  let best = 0;
  for (let i = 0; i < o.runs; i++) {
    const r = await peer.ask<Extract<PeerAnswer, { type: 'downloaded' }>>({ type: 'download', port });
    best = Math.max(best, r.bytes / 1e6 / (r.ms / 1000));
  }
  return round(best);
}

async function roundTrips(peer: Peer, port: number, o: ProxyBenchOptions): Promise<{ p50: number; p99: number }> {
  const { ms } = await peer.ask<Extract<PeerAnswer, { type: 'rounds' }>>({ type: 'roundTrips', port, rounds: o.rounds, size: o.size });
  const us = ms.slice(Math.floor(ms.length / 10)).map((m) => m * 1000); // the first tenth warms up
  return { p50: round(median(us)), p99: round(percentile(us, 99)) };
}

export async function runProxyBench(o: ProxyBenchOptions): Promise<ProxyBenchReport> {
  const dir = await mkdtemp(join(tmpdir(), 'kedge-bench-proxy-'));
  const endpoint = new Peer('endpoint', o.megabytes * 1e6);
  const peer = new Peer('client');
  const rules = new ProxyRules({ nodeAddress: '127.0.0.1', portals: await PortalsFile.open(dir, { logger: silentLogger }), clock: realClock, logger: silentLogger });
  try {
    const { sourcePort, echoPort } = await endpoint.ready();
    await rules.apply([{ type: 'open', rule: rule('source', sourcePort) }, { type: 'open', rule: rule('echo', echoPort) }]);
    const portal = (key: string): number => rules.portalOf(key)!.port;
    const direct = await bestMBps(peer, sourcePort, o);
    const proxied = await bestMBps(peer, portal('source'), o);
    o.log(`proxy: ${o.megabytes} MB download, best of ${o.runs}: direct ${direct} MB/s, through the portal ${proxied} MB/s`);
    const rtDirect = await roundTrips(peer, echoPort, o);
    const rtProxy = await roundTrips(peer, portal('echo'), o);
    o.log(`proxy: ${o.rounds} round trips of ${o.size} B: direct p50 ${rtDirect.p50} µs p99 ${rtDirect.p99} µs; through the portal p50 ${rtProxy.p50} µs p99 ${rtProxy.p99} µs`);
    return {
      megabytes: o.megabytes,
      runs: o.runs,
      rounds: o.rounds,
      requestBytes: o.size,
      throughputMBps: { direct, proxy: proxied, ratio: round(proxied / direct, 2) },
      roundTripUs: { direct: rtDirect, proxy: rtProxy, p50Ratio: round(rtProxy.p50 / rtDirect.p50, 2), p99Ratio: round(rtProxy.p99 / rtDirect.p99, 2) },
    };
  } finally {
    await rules.close();
    await Promise.all([peer.close(), endpoint.close()]);
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const report = await runProxyBench({ megabytes: 50, runs: 3, rounds: 2000, size: 64, log: (l) => process.stderr.write(`[bench] ${l}\n`) });
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
}
