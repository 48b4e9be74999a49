import { KedgeError } from '../../../shared/errors.js';

/**
 * Where the Store's keys live in etcd: under a prefix (kube-apiserver's --etcd-prefix). When
 * every Store key begins with a root (the cloud's: `/registry`), the root is swapped for the
 * prefix, so with the default prefix a Pod is at `/registry/pods/default/web-1`, where
 * kube-apiserver keeps it. Without a root, keys are appended to the prefix as they are.
 */
export class EtcdKeys {
  private readonly prefixBytes: Buffer;

  constructor(
    readonly prefix: string,
    private readonly root = '',
  ) {
    this.prefixBytes = Buffer.from(prefix);
  }

  /** The etcd key of a Store key, or of a Store key prefix (one the root begins with means all of the store). */
  toEtcd(key: string): Buffer {
    if (key.startsWith(this.root)) return Buffer.concat([this.prefixBytes, Buffer.from(key.slice(this.root.length))]);
    if (this.root.startsWith(key)) return this.prefixBytes;
    throw new KedgeError('Invalid', `key ${key} is outside the store (its keys begin with ${this.root})`);
  }

  /** The Store key of an etcd key under the prefix. */
  fromEtcd(key: Buffer): string {
    return this.root + key.subarray(this.prefixBytes.length).toString('utf8');
  }

  /** Every key of the store. */
  get all(): Buffer {
    return this.prefixBytes;
  }
}
