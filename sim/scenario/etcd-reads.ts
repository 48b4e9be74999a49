import { Etcd3 } from 'etcd3';
import { etcdClientOptions } from '../../cloud/store/etcd/open-etcd-store.js';
import { DEFAULT_ETCD_PREFIX } from '../../cloud/store/etcd/etcd-store.js';
import { prefixEnd } from '../../cloud/store/etcd/etcd-codec.js';
import type { Clock } from '../../shared/clock.js';
import type { MemberRead } from './quorum-probes.js';

/** A read gets this long (real time) from a member: etcd itself gives up on a quorum-less linearizable read only after about 7 s. */
export const READ_TIMEOUT_MS = 3_000;

/**
 * Counts the cloud's keys on one member, asking it alone: linearizable (it confirms with its
 * quorum that it is current) or serializable (it answers from its own data).
 */
export async function readMember(member: { name: string; clientUrl: string }, consistency: 'linearizable' | 'serializable', clock: Clock): Promise<MemberRead> {
  const client = new Etcd3(await etcdClientOptions({ endpoints: [member.clientUrl], requestTimeoutMs: READ_TIMEOUT_MS }));
  const t0 = clock.now();
  try {
    const key = Buffer.from(DEFAULT_ETCD_PREFIX);
    const res = await client.kv.range({ key, range_end: prefixEnd(key), count_only: true, serializable: consistency === 'serializable' });
    return { member: member.name, answered: true, detail: `${res.count} keys at revision ${res.header.revision}`, ms: clock.now() - t0 };
  } catch (err) {
    return { member: member.name, answered: false, detail: (err as Error).message.split(',')[0]!.slice(0, 160), ms: clock.now() - t0 };
  } finally {
    client.close();
  }
}
