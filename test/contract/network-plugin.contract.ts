import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkPlugin, SandboxRef } from '../../edge/network/cni/network-plugin.js';
import { FakeClock } from '../../shared/clock.js';

/** One plugin over a podCIDR the test sets, and the same plugin's state opened again (an edge restart). */
export interface NetworkHarness {
  plugin: NetworkPlugin;
  reopen(): Promise<NetworkPlugin>;
  cleanup(): Promise<void>;
}

export type OpenNetwork = (deps: { nodeName: string; podCIDR: () => string | undefined; clock: FakeClock }) => Promise<NetworkHarness>;

const ref = (containerId: string): SandboxRef => ({ containerId, podUid: `uid-${containerId}`, namespace: 'default', name: `pod-${containerId}` });

/** The network plugin contract: host-local IPAM as CNI's host-local plugin hands out addresses, and the plugin as an edge component. */
export function networkPluginContract(name: string, open: OpenNetwork): void {
  describe(`network plugin: ${name}`, () => {
    let h: NetworkHarness;
    let plugin: NetworkPlugin;
    let podCIDR: string | undefined;
    let clock: FakeClock;

    beforeEach(async () => {
      podCIDR = '10.1.0.0/24';
      clock = new FakeClock(1_000_000);
      h = await open({ nodeName: 'edge-1', podCIDR: () => podCIDR, clock });
      plugin = h.plugin;
    });
    afterEach(() => h.cleanup());

    const addAll = async (...ids: string[]): Promise<string[]> => {
      const out: string[] = [];
      for (const id of ids) out.push((await plugin.add(ref(id))).ip);
      return out;
    };

    it('gives the first pod .2 (the gateway .1 is skipped), with the podCIDR it came from', async () => {
      expect(plugin.name).toBe('kedge-cni');
      expect(plugin.status()).toEqual({ ready: true });
      expect(await plugin.add(ref('a'))).toEqual({ ip: '10.1.0.2', cidr: '10.1.0.0/24' });
      expect(await plugin.add(ref('b'))).toEqual({ ip: '10.1.0.3', cidr: '10.1.0.0/24' });
    });

    it('hands out round robin after the last reserved address: a released one is not reused at once', async () => {
      await addAll('a', 'b');
      await plugin.del(ref('a'));
      expect(await addAll('c')).toEqual(['10.1.0.4']);
    });

    it('is idempotent: ADD again for the same sandbox returns its address and reserves nothing more', async () => {
      const first = await plugin.add(ref('a'));
      expect(await plugin.add(ref('a'))).toEqual(first);
      expect(await addAll('b')).toEqual(['10.1.0.3']);
    });

    it('frees on DEL: CHECK then finds nothing, a second DEL is no error, and the address comes round again', async () => {
      podCIDR = '10.1.0.0/29'; // .2 to .6
      await addAll('a', 'b', 'c');
      await plugin.del(ref('b'));
      await expect(plugin.check(ref('b'))).rejects.toMatchObject({ code: 'NotFound' });
      await plugin.del(ref('b'));
      expect(await addAll('d', 'e', 'f')).toEqual(['10.1.0.5', '10.1.0.6', '10.1.0.3']);
    });

    it('says clearly when the range is exhausted', async () => {
      podCIDR = '10.1.0.0/29';
      expect(await addAll('a', 'b', 'c', 'd', 'e')).toEqual(['10.1.0.2', '10.1.0.3', '10.1.0.4', '10.1.0.5', '10.1.0.6']);
      await expect(plugin.add(ref('f'))).rejects.toMatchObject({ code: 'Unavailable', message: expect.stringMatching(/^no IP addresses available in range set: 10\.1\.0\.1-10\.1\.0\.6/) });
      await plugin.del(ref('c'));
      expect(await addAll('f')).toEqual(['10.1.0.4']);
    });

    it('is not ready, and refuses ADD, while the node has no podCIDR', async () => {
      podCIDR = undefined;
      expect(plugin.status()).toEqual({ ready: false, reason: 'NetworkPluginNotReady', message: 'no podCIDR assigned to node edge-1 yet' });
      await expect(plugin.add(ref('a'))).rejects.toThrow(
        'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:no podCIDR assigned to node edge-1 yet',
      );
      podCIDR = 'not-a-cidr';
      expect(plugin.status()).toMatchObject({ ready: false, message: expect.stringContaining('not-a-cidr') });
      podCIDR = '10.1.0.0/24';
      expect((await plugin.add(ref('a'))).ip).toBe('10.1.0.2');
    });

    it('stopped: not ready, ADD refused with NetworkPluginNotReady, addresses handed out stay valid, DEL still releases', async () => {
      const changes: number[] = [];
      const sub = plugin.statusChanges$.subscribe(() => changes.push(clock.now()));
      await addAll('a', 'b');
      const startedAt = plugin.since();
      await clock.advance(5000);
      await plugin.stop();
      expect(plugin.running()).toBe(false);
      expect(plugin.since()).toBe(startedAt + 5000);
      expect(plugin.status()).toEqual({ ready: false, reason: 'NetworkPluginNotReady', message: 'kedge-cni is stopped' });
      await expect(plugin.add(ref('c'))).rejects.toMatchObject({
        code: 'Unavailable',
        message: 'container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:kedge-cni is stopped',
      });
      await expect(plugin.add(ref('a'))).rejects.toThrow(/kedge-cni is stopped/);
      expect((await plugin.check(ref('a'))).ip).toBe('10.1.0.2');
      await plugin.del(ref('b'));
      await plugin.start();
      expect(plugin.running()).toBe(true);
      expect(plugin.status().ready).toBe(true);
      expect(changes).toEqual([startedAt + 5000, startedAt + 5000]);
      expect(await addAll('c')).toEqual(['10.1.0.4']);
      sub.unsubscribe();
    });

    it('CHECK says what the sandbox holds, and NotFound for one that holds nothing', async () => {
      await addAll('a');
      expect(await plugin.check(ref('a'))).toEqual({ ip: '10.1.0.2', cidr: '10.1.0.0/24' });
      await expect(plugin.check(ref('nobody'))).rejects.toMatchObject({ code: 'NotFound', message: expect.stringContaining('nobody') });
    });

    it('after a podCIDR change (the node re-created) hands out the new range; sandboxes keep what they hold until DEL', async () => {
      await addAll('a', 'b');
      podCIDR = '10.2.0.0/24';
      expect(await plugin.add(ref('c'))).toEqual({ ip: '10.2.0.2', cidr: '10.2.0.0/24' });
      expect(await plugin.add(ref('a'))).toEqual({ ip: '10.1.0.2' });
      expect(await plugin.check(ref('b'))).toEqual({ ip: '10.1.0.3' });
      await plugin.del(ref('a'));
      await expect(plugin.check(ref('a'))).rejects.toMatchObject({ code: 'NotFound' });
    });

    it('GC releases what no live sandbox holds, and records a live sandbox the plugin lost', async () => {
      await addAll('a', 'b', 'c');
      expect(await plugin.gc([{ containerId: 'a', ip: '10.1.0.2' }, { containerId: 'z', ip: '10.1.0.9' }])).toEqual(['10.1.0.3', '10.1.0.4']);
      await expect(plugin.check(ref('b'))).rejects.toMatchObject({ code: 'NotFound' });
      expect((await plugin.check(ref('z'))).ip).toBe('10.1.0.9');
      expect(await plugin.gc([{ containerId: 'a', ip: '10.1.0.2' }, { containerId: 'z', ip: '10.1.0.9' }])).toEqual([]);
    });

    it('after a restart and a GC against the runtime, live sandboxes keep their addresses and no new one collides', async () => {
      await addAll('a', 'b', 'c');
      plugin = await h.reopen();
      await plugin.gc([{ containerId: 'a', ip: '10.1.0.2' }, { containerId: 'c', ip: '10.1.0.4' }]);
      expect(await plugin.add(ref('a'))).toEqual({ ip: '10.1.0.2', cidr: '10.1.0.0/24' });
      const fresh = await addAll('d', 'e');
      expect(fresh).not.toContain('10.1.0.2');
      expect(fresh).not.toContain('10.1.0.4');
      expect(new Set(fresh).size).toBe(2);
    });

    it('gives sandboxes created together different addresses', async () => {
      const ips = await Promise.all(['a', 'b', 'c', 'd'].map((id) => plugin.add(ref(id)).then((a) => a.ip)));
      expect(new Set(ips).size).toBe(4);
    });
  });
}
