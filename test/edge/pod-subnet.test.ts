import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildNode } from '../../edge/edged/node-status.js';
import { podSubnet } from '../../edge/runtime/pod-subnet.js';
import { SimRuntime } from '../../edge/runtime/sim-runtime.js';
import { FakeClock } from '../../shared/clock.js';

const inBlock = (ip: string, cidr: string): boolean => {
  const toInt = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const [base, bits] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return toInt(ip) > toInt(base!) && toInt(ip) < toInt(base!) + size - 1;
};

describe('a node pod subnet', () => {
  it.each([
    [110, 24, 253],
    [253, 24, 253],
    [254, 23, 509],
    [1000, 22, 1021],
    [65_000, 16, 65_533],
  ])('--max-pods %i: a /%i with %i addresses', (maxPods, bits, size) => {
    const subnet = podSubnet('edge-1', maxPods);
    expect(subnet.cidr.endsWith(`/${bits}`)).toBe(true);
    expect(subnet.size).toBe(size);
    const all = Array.from({ length: size }, (_, i) => subnet.address(i + 2));
    expect(new Set(all).size).toBe(size);
    expect(all.every((ip) => inBlock(ip, subnet.cidr))).toBe(true);
  });

  it('keeps the /24 it always had for a node of the default size', () => {
    expect(podSubnet('edge-1').cidr).toBe(podSubnet('edge-1', 200).cidr);
    expect(podSubnet('edge-1').address(2)).toMatch(/^10\.244\.\d+\.2$/);
  });

  it('lets a sim node hold 1,000 pods, each with its own IP, and says so in its capacity', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kedge-subnet-'));
    try {
      const runtime = await SimRuntime.open({ nodeName: 'edge-1', dataDir: dir, clock: new FakeClock(), defaultStartMs: 0, maxPods: 1000 });
      const ips = new Set<string>();
      for (let i = 0; i < 1000; i++) ips.add((await runtime.runSandbox({ podUid: `u${i}`, name: `p${i}`, namespace: 'default' })).ip);
      expect(ips.size).toBe(1000);
      const small = await SimRuntime.open({ nodeName: 'edge-2', dataDir: join(dir, 'small'), clock: new FakeClock(), defaultStartMs: 0 });
      for (let i = 0; i < 253; i++) await small.runSandbox({ podUid: `u${i}`, name: `p${i}`, namespace: 'default' });
      await expect(small.runSandbox({ podUid: 'one-more', name: 'x', namespace: 'default' })).rejects.toThrow(/no free pod IP left in 10\.244\.\d+\.0\/24/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const facts = { nodeName: 'edge-1', hostIP: '127.0.0.1', runtimeName: 'sim', runtimeVersion: '0.1.0', bootId: 'b', machineId: 'm', osImage: 'o', kernelVersion: 'k', readySince: 0 };
    expect(buildNode({ ...facts, maxPods: 1000 }, 0).status?.capacity?.pods).toBe('1000');
    expect(buildNode(facts, 0).status?.allocatable?.pods).toBe('110');
  });
});
