import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../../shared/log.js';
import { KeyedSerial } from '../../../shared/keyed-serial.js';
import { Coalescer } from '../../coalescer.js';
import { makePrivateDir, writePrivate } from '../../../shared/private-file.js';
import { ipToInt } from './ipv4-range.js';
import type { IpamState, IpamStore } from './ipam-store.js';

export const NETWORK_NAME = 'kedge';
export const LAST_RESERVED_FILE = 'last_reserved_ip.0';

/** host-local's state directory for the network, under the edge's data dir (`/var/lib/cni/networks/<net>` on a kube node). */
export const ipamDir = (dataDir: string): string => join(dataDir, 'cni', 'networks', NETWORK_NAME);

const isAddress = (name: string): boolean => ipToInt(name) !== undefined;
/** A container id as the runtimes make them; anything else in a file is not one. */
const CONTAINER_ID = /^[\w.-]{1,128}$/;

/**
 * host-local's files: one per reserved address, named by it, holding the container id; and
 * `last_reserved_ip.0`. Each written whole and owner-only (temp file, rename), but not fsynced,
 * as host-local's: the runtimes' sandbox records are what is durable, and the plugin's GC at the
 * edge's start re-records every live sandbox's address and releases the rest before any ADD, so
 * a file a power cut loses is restored and no address is handed out twice (a thousand pods'
 * worth of fsyncs made a rebooted edge's first sync 12 s instead of 0.4 s). Read defensively: a
 * file whose name is no address is left alone, one that holds no container id stays reserved
 * for "" (GC releases it), a damaged last_reserved_ip is ignored.
 */
export function diskIpamStore(options: { dataDir: string; logger: Logger }): IpamStore {
  const dir = ipamDir(options.dataDir);
  // Each address's file changes in the order asked (a release then a new reservation of it);
  // the round-robin place is a hint: concurrent calls share one write of the newest.
  const inOrder = new KeyedSerial();
  const write = (name: string, text: string): Promise<void> => inOrder.run(name, () => writePrivate(join(dir, name), text, { durable: false }));
  let lastReserved = '';
  const lastWrites = new Coalescer(() => write(LAST_RESERVED_FILE, lastReserved));
  return {
    async load(): Promise<IpamState> {
      await makePrivateDir(dir);
      const names = await readdir(dir);
      const reserved = new Map<string, string>();
      for (const name of names.filter((n) => n.endsWith('.tmp'))) await rm(join(dir, name), { force: true }); // a write cut short
      for (const name of names.filter(isAddress)) {
        const id = (await readFile(join(dir, name), 'utf8').catch(() => '')).split('\n')[0]!.trim();
        if (!CONTAINER_ID.test(id)) options.logger.warn('pod address file holds no container id: released at the next GC', { ip: name });
        reserved.set(name, CONTAINER_ID.test(id) ? id : '');
      }
      const last = (await readFile(join(dir, LAST_RESERVED_FILE), 'utf8').catch(() => '')).trim();
      return { reserved, ...(isAddress(last) ? { lastReserved: last } : {}) };
    },
    reserve: (ip, containerId) => write(ip, containerId),
    setLastReserved: (ip) => {
      lastReserved = ip;
      return lastWrites.run();
    },
    release: (ip) => inOrder.run(ip, () => rm(join(dir, ip), { force: true })),
  };
}
