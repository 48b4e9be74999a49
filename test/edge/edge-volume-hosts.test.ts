import { describe, expect, it } from 'vitest';
import { DiskVolumeHost } from '../../edge/volumes/disk-volume-host.js';
import { MemoryVolumeHost } from '../../edge/volumes/memory-volume-host.js';
import { edgeVolumeHosts } from '../../edge/volumes/volume-hosts.js';
import { FakeClock } from '../../shared/clock.js';
import type { Pod } from '../../shared/types.js';

const pod = (runtimeClassName?: string): Pod => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [], ...(runtimeClassName ? { runtimeClassName } : {}) } });
const options = { dataDir: '/nowhere', hostRoot: '/nowhere/host', clock: new FakeClock() };

describe("an edge's volume hosts", () => {
  it("puts sim pods' volumes on disk, as process pods' (the sim shell works on them there)", () => {
    const hosts = edgeVolumeHosts(options);
    expect(hosts.hostFor(pod())).toBeInstanceOf(DiskVolumeHost);
    expect(hosts.hostFor(pod())).toBe(hosts.hostFor(pod('process')));
    expect(hosts.hosts).toEqual([hosts.hostFor(pod())]);
  });

  it("keeps sim pods' volumes as records with simVolumes 'memory' (hollow fleets), process pods' on disk", () => {
    const hosts = edgeVolumeHosts({ ...options, simVolumes: 'memory' });
    expect(hosts.hostFor(pod())).toBeInstanceOf(MemoryVolumeHost);
    expect(hosts.hostFor(pod('process'))).toBeInstanceOf(DiskVolumeHost);
    expect(hosts.hosts).toHaveLength(2);
  });
});
