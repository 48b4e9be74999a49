import type { Etcd3, IKeyValue } from 'etcd3';
import { KedgeError } from '../../../shared/errors.js';
import { deepFreeze } from '../../../shared/freeze.js';
import type { KeyValue } from '../store.js';
import type { EtcdKeys } from './etcd-keys.js';

/*
 * Between the Store's shapes and etcd's: keys live under a prefix (kube-apiserver's
 * --etcd-prefix), values are JSON, and etcd3 hands every int64 over as a decimal string.
 */

/** The key just past every key starting with `prefix` (etcd's range_end for a prefix). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i]! < 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  return Buffer.from([0]); // every key: etcd reads "\0" as "to the end"
}

/** The stored entry, frozen, under its Store key. */
export function toKeyValue(kv: IKeyValue, keys: EtcdKeys): KeyValue {
  return {
    key: keys.fromEtcd(kv.key),
    value: deepFreeze(parseValue(kv)),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

function parseValue(kv: IKeyValue): unknown {
  try {
    return JSON.parse(kv.value.toString('utf8'));
  } catch {
    throw new KedgeError('Internal', `etcd key ${kv.key.toString('utf8')} does not hold JSON`);
  }
}

const UNAVAILABLE = [
  /unavailable/i, /circuit breaker/i, /request timed out/i, /no leader/i, /leader changed/i, /client.*closed/i, /ECONNREFUSED/, /connect/i, /too many requests/i,
];

/** etcd's error as a KedgeError keeping etcd's words: compaction is Expired (410), an unreachable or quorum-less etcd Unavailable (503). */
export function etcdError(err: unknown): KedgeError {
  if (err instanceof KedgeError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const name = err instanceof Error ? err.constructor.name : '';
  if (/required revision has been compacted/.test(message)) return new KedgeError('Expired', `etcd: ${message}`, { cause: err });
  if (name === 'GRPCDeadlineExceededError' || /deadline exceeded/i.test(message)) return new KedgeError('Timeout', `etcd: ${message}`, { cause: err });
  if (name === 'GRPCUnavailableError' || name === 'ClientClosedError' || name === 'BrokenCircuitError' || UNAVAILABLE.some((re) => re.test(message))) {
    return new KedgeError('Unavailable', `etcd: ${message}`, { cause: err });
  }
  return new KedgeError('Internal', `etcd: ${message}`, { cause: err });
}

/** etcd's revision, as `client` reaches it; closes the client if etcd does not answer. */
export async function currentRevision(client: Etcd3, prefix: Buffer): Promise<number> {
  try {
    const res = await client.kv.range({ key: prefix, range_end: prefixEnd(prefix), count_only: true });
    return Number(res.header.revision);
  } catch (err) {
    client.close();
    throw etcdError(err);
  }
}
