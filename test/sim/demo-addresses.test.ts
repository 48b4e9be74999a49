import { describe, expect, it } from 'vitest';
import { demoClusterCidr, demoNodeIp } from '../../sim/demo.js';

describe('a demo\'s addresses', () => {
  it('gives edge i the node address 127.0.1.i on Linux, 127.0.0.1 elsewhere', () => {
    expect([1, 2, 3].map((i) => demoNodeIp(i, 'linux'))).toEqual(['127.0.1.1', '127.0.1.2', '127.0.1.3']);
    expect(demoNodeIp(1, 'darwin')).toBe('127.0.0.1');
  });

  it('picks its pod network inside 127.64.0.0/10 by its data dir, the same one each start', () => {
    const cidrs = ['/a/.kedge/demo', '/b/.kedge/demo', '/tmp/x/data', '/tmp/y/data'].map(demoClusterCidr);
    for (const cidr of cidrs) expect(cidr).toMatch(/^127\.(6[4-9]|[7-9]\d|1[01]\d|12[0-7])\.0\.0\/16$/);
    expect(new Set(cidrs).size).toBeGreaterThan(1);
    expect(demoClusterCidr('/a/.kedge/demo')).toBe(cidrs[0]);
  });
});
